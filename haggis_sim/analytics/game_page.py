"""The game viewer's HTML page: one self-contained file (inline CSS and JS, the data as JSON).

:func:`render_page` embeds the frames of :func:`.game_view.build_view` as a JSON script
block and a small script that draws one frame at a time. Nothing is fetched: no
external script, style sheet, font or image, so the page works offline and from any
folder. The script writes page text only through ``textContent`` (strategy names come
from plug-ins and are never read as HTML).
"""

from __future__ import annotations

import html
import json
from typing import Any

CSS = """
* { box-sizing: border-box; }
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0;
  color: #1b1b1b; background: #f4f1ea; }
header { padding: 12px 20px 8px; background: #26402f; color: #f4f1ea; }
header h1 { font-size: 20px; margin: 0 0 4px; }
header .meta { margin: 2px 0; font-size: 13px; }
header .note { margin: 4px 0 0; font-size: 13px; color: #ffe6a6; }
header details { font-size: 12px; margin-top: 2px; }
header summary { cursor: pointer; }
.controls { display: flex; align-items: center; gap: 6px; padding: 8px 20px;
  background: #e3ddd0; border-bottom: 1px solid #c9c0ad; flex-wrap: wrap; }
.controls button { font: inherit; padding: 4px 10px; border: 1px solid #8d826b;
  background: #fffdf8; border-radius: 4px; cursor: pointer; }
.controls button:hover { background: #fff3d6; }
#pos { font-weight: 600; margin-left: 10px; font-variant-numeric: tabular-nums; }
.keys { margin-left: auto; color: #5b5446; font-size: 12px; }
main { display: grid; grid-template-columns: minmax(0, 1fr) 320px; gap: 14px;
  padding: 12px 20px; }
.seat { background: #fffdf8; border: 1px solid #d6cdb9; border-radius: 6px;
  padding: 8px 10px; margin-bottom: 8px; }
.seat.acting { border-color: #c2571a; box-shadow: 0 0 0 2px #f3b38c; }
.seat.just { border-color: #26402f; }
.seat h2 { font-size: 14px; margin: 0 0 6px; display: flex; gap: 8px; align-items: baseline;
  flex-wrap: wrap; }
.seat h2 .who { font-weight: 400; color: #5b5446; overflow-wrap: anywhere; }
.badges { display: inline-flex; gap: 4px; }
.badge { font-size: 11px; font-weight: 600; padding: 1px 6px; border-radius: 8px;
  background: #e3ddd0; }
.badge.act { background: #c2571a; color: #fff; }
.badge.bet { background: #7b3fa0; color: #fff; }
.badge.out { background: #26402f; color: #fff; }
.hand { min-height: 30px; display: flex; flex-wrap: wrap; gap: 3px; }
.stats { margin-top: 6px; font-size: 12px; color: #5b5446; }
.stats b { color: #1b1b1b; }
.card { display: inline-block; min-width: 28px; padding: 3px 4px; text-align: center;
  font: 600 14px/1.2 ui-monospace, "DejaVu Sans Mono", monospace; border-radius: 4px;
  border: 1px solid #b9b09c; background: #fff; }
.card.s-a { color: #1f5fa8; } .card.s-b { color: #b3261e; } .card.s-c { color: #23753a; }
.card.s-d { color: #6a3d9a; } .card.s-e { color: #b35c00; }
.card.face { background: #fbe7a8; color: #5a3b00; border-color: #c9a640; }
.empty { color: #8d826b; font-style: italic; font-size: 12px; }
td.empty { text-align: left; }
.table { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 8px; }
.box { background: #fffdf8; border: 1px solid #d6cdb9; border-radius: 6px; padding: 8px 10px; }
.box h3 { font-size: 13px; margin: 0 0 6px; color: #26402f; }
.play { display: flex; gap: 6px; align-items: center; margin: 3px 0; flex-wrap: wrap; }
.play .who { min-width: 50px; font-weight: 600; }
.play.pass { color: #8d826b; }
.play.top .what { font-weight: 700; }
.play .what.bomb { color: #b3261e; font-weight: 700; }
#event-head { font-weight: 700; margin-bottom: 4px; }
#event-notes { margin: 0; padding-left: 18px; }
#moves { max-height: 560px; overflow-y: auto; font-size: 12px; padding: 4px 0; }
#moves div { padding: 2px 10px; cursor: pointer; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; }
#moves div:hover { background: #f3ead6; }
#moves div.sep { color: #5b5446; font-weight: 600; }
#moves div.cur { background: #26402f; color: #fff; }
section.scores { padding: 0 20px 20px; }
section.scores h3 { font-size: 14px; margin: 4px 0 6px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; background: #fffdf8; font-size: 12px;
  font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d6cdb9; padding: 3px 7px; text-align: right; }
th { background: #e3ddd0; }
td.run { font-weight: 700; }
#alts-box { margin-top: 8px; }
#alts-box .label { margin: 0 0 4px; font-size: 12px; color: #5b5446; }
#alts-note { font-size: 12px; margin-bottom: 4px; }
#alts-scroll { max-height: 300px; overflow-y: auto; }
#alts td.text, #alts th { text-align: left; }
#alts tr.played td { background: #fff3d6; font-weight: 600; }
#alts tr.best td.mark { color: #23753a; font-weight: 700; }
"""

JS = r"""
(function () {
  var D = JSON.parse(document.getElementById('game-data').textContent);
  var F = D.frames, N = D.players, cur = 0;
  var segStart = [], finished = [], done = 0;
  F.forEach(function (f, i) {
    segStart.push(i > 0 && F[i - 1].segment === f.segment ? segStart[i - 1] : i);
    if (f.kind === 'round_end') done = f.round + 1;
    finished.push(done);
  });
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function card(c) {
    var face = c.length === 1;
    var e = el('span', 'card ' + (face ? 'face' : 's-' + c.charAt(1)), c);
    return e;
  }
  function cards(box, list) {
    box.textContent = '';
    if (!list.length) { box.appendChild(el('span', 'empty', 'no cards')); return; }
    list.forEach(function (c) { box.appendChild(card(c)); });
  }
  function ordinal(k) { return ['1st', '2nd', '3rd'][k]; }
  function where(f) {
    if (f.kind === 'game_end') return 'game over';
    var r = 'round ' + (f.round + 1);
    if (f.kind === 'deal') return r + ' · deal';
    if (f.kind === 'round_end') return r + ' · end';
    return r + ' · trick ' + (f.trick + 1);
  }
  function moveText(f) {
    if (f.kind === 'deal') return 'Round ' + (f.round + 1) + ': the deal';
    if (f.kind === 'round_end') return 'Round ' + (f.round + 1) + ' over';
    if (f.kind === 'game_end') return 'Game over';
    return 'T' + (f.trick + 1) + '  ' + f.head;
  }
  function drawSeats(f) {
    for (var s = 0; s < N; s++) {
      var box = document.getElementById('seat-' + s);
      box.className = 'seat' + (f.to_act === s ? ' acting' : '') + (f.seat === s ? ' just' : '');
      var badges = document.getElementById('badges-' + s);
      badges.textContent = '';
      if (f.to_act === s) badges.appendChild(el('span', 'badge act', 'to act'));
      if (f.bets[s]) badges.appendChild(el('span', 'badge bet', 'bet ' + f.bets[s]));
      var k = f.out.indexOf(s);
      if (k >= 0) badges.appendChild(el('span', 'badge out', 'out ' + ordinal(k)));
      cards(document.getElementById('hand-' + s), f.hands[s]);
      document.getElementById('size-' + s).textContent = f.hands[s].length;
      document.getElementById('capt-' + s).textContent =
        f.captured[s][0] + ' cards (' + f.captured[s][1] + ' pts)';
      document.getElementById('total-' + s).textContent = f.totals[s];
    }
  }
  function drawTrick(f) {
    var box = document.getElementById('trick');
    box.textContent = '';
    var title = document.getElementById('trick-title');
    title.textContent = f.kind === 'action' ? 'Trick ' + (f.trick + 1) : 'The table';
    if (!f.trick_plays.length) { box.appendChild(el('div', 'empty', 'no cards on the table')); }
    var top = -1;
    f.trick_plays.forEach(function (p, i) { if (p.cards.length) top = i; });
    f.trick_plays.forEach(function (p, i) {
      var row = el('div', 'play' + (p.kind === 'pass' ? ' pass' : '') + (i === top ? ' top' : ''));
      row.appendChild(el('span', 'who', 'seat ' + p.seat));
      row.appendChild(el('span', 'what' + (p.kind === 'bomb' ? ' bomb' : ''), p.text));
      p.cards.forEach(function (c) { row.appendChild(card(c)); });
      box.appendChild(row);
    });
    cards(document.getElementById('haggis'), f.haggis);
    var caption = 'Haggis (set aside: no player sees it)';
    if (f.kind === 'round_end' || f.kind === 'game_end') {
      var to = D.rounds[f.round].haggis_to;
      caption = to === null ? 'Haggis: nobody captured it' : 'Haggis: captured by seat ' + to;
    }
    document.getElementById('haggis-title').textContent = caption;
  }
  function drawEvent(f) {
    document.getElementById('event-head').textContent = f.head;
    var notes = document.getElementById('event-notes');
    notes.textContent = '';
    f.notes.forEach(function (n) { notes.appendChild(el('li', '', n)); });
    var a = f.act, read = document.getElementById('reading');
    read.textContent = '';
    if (a && a.type === 'play') {
      read.textContent = a.kind + ' · rank ' + a.rank + ' · ' + a.reading;
    }
  }
  function drawAlts(f) {
    var A = D.alternatives, box = document.getElementById('alts');
    if (!A) return;
    box.textContent = '';
    var note = document.getElementById('alts-note'), x = f.alts;
    if (!x) {
      var why = f.kind !== 'action' ? 'not a decision'
        : A.seats.indexOf(f.seat) < 0 ? 'seat ' + f.seat + ' is not among the scored seats'
        : 'one legal action only';
      note.textContent = 'not scored (' + why + ')';
      return;
    }
    note.textContent = 'seat ' + f.seat + ' chose this step\'s move from ' + x.note +
      ' (seed ' + x.seed + ')';
    var head = el('tr');
    ['#', 'action', 'value', 'round margin', ''].forEach(function (h) {
      head.appendChild(el('th', '', h));
    });
    box.appendChild(head);
    x.rows.forEach(function (r, i) {
      var tr = el('tr', (r.played ? 'played' : '') + (r.best ? ' best' : ''));
      tr.appendChild(el('td', '', String(i + 1)));
      tr.appendChild(el('td', 'text', r.text));
      tr.appendChild(el('td', '', r.value.toFixed(3) + ' ± ' + r.stderr.toFixed(3)));
      var m = (r.margin >= 0 ? '+' : '') + r.margin.toFixed(1);
      tr.appendChild(el('td', '', m + ' ± ' + r.margin_stderr.toFixed(1)));
      var marks = [];
      if (r.played) marks.push('played');
      if (r.best) marks.push('best');
      tr.appendChild(el('td', 'mark', marks.join(' · ')));
      box.appendChild(tr);
    });
  }
  function drawMoves(f) {
    var box = document.getElementById('moves');
    box.textContent = '';
    var chosen = null;
    F.forEach(function (g, i) {
      if (g.round !== f.round && !(f.kind === 'game_end' && g.kind === 'game_end')) return;
      if (f.kind !== 'game_end' && g.kind === 'game_end') return;
      var line = el('div', g.kind === 'action' ? '' : 'sep', moveText(g));
      if (i === cur) { line.className += ' cur'; chosen = line; }
      line.addEventListener('click', function () { go(i); });
      box.appendChild(line);
    });
    if (chosen) {
      var top = chosen.offsetTop - box.offsetTop;
      if (top < box.scrollTop || top > box.scrollTop + box.clientHeight - 24) {
        box.scrollTop = Math.max(0, top - box.clientHeight / 2);
      }
    }
  }
  function drawScores(i) {
    var body = document.getElementById('score-rows');
    body.textContent = '';
    var n = finished[i];
    for (var r = 0; r < n; r++) {
      var R = D.rounds[r], tr = el('tr');
      tr.appendChild(el('td', '', String(R.round + 1)));
      for (var s = 0; s < N; s++) {
        var sc = R.scores[s];
        ['going_out', 'cards', 'bets', 'bonus', 'total'].forEach(function (k) {
          tr.appendChild(el('td', '', String(sc[k])));
        });
        tr.appendChild(el('td', 'run', String(R.totals[s])));
      }
      body.appendChild(tr);
    }
    if (!n) {
      var tr0 = el('tr'), td = el('td', 'empty', 'no round finished yet');
      td.colSpan = 1 + 6 * N;
      tr0.appendChild(td);
      body.appendChild(tr0);
    }
  }
  function go(i) {
    cur = Math.max(0, Math.min(F.length - 1, i));
    var f = F[cur];
    document.getElementById('pos').textContent =
      'step ' + (cur + 1) + ' / ' + F.length + ' · ' + where(f);
    drawSeats(f); drawTrick(f); drawEvent(f); drawAlts(f); drawMoves(f); drawScores(cur);
    try { history.replaceState(null, '', '#' + (cur + 1)); } catch (e) { /* a sandboxed page */ }
  }
  function nextTrick() {
    var s = F[cur].segment, i = cur;
    while (i < F.length - 1 && F[i].segment === s) i++;
    go(i);
  }
  function prevTrick() {
    go(cur > segStart[cur] ? segStart[cur] : (cur > 0 ? segStart[cur - 1] : 0));
  }
  var keys = {
    ArrowRight: function () { go(cur + 1); }, ArrowLeft: function () { go(cur - 1); },
    ArrowDown: nextTrick, PageDown: nextTrick, ArrowUp: prevTrick, PageUp: prevTrick,
    Home: function () { go(0); }, End: function () { go(F.length - 1); }
  };
  document.addEventListener('keydown', function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey || !keys[e.key]) return;
    e.preventDefault();
    keys[e.key]();
  });
  var buttons = {
    'b-first': keys.Home, 'b-ptrick': prevTrick, 'b-prev': keys.ArrowLeft,
    'b-next': keys.ArrowRight, 'b-ntrick': nextTrick, 'b-last': keys.End
  };
  Object.keys(buttons).forEach(function (id) {
    document.getElementById(id).addEventListener('click', buttons[id]);
  });
  var start = /^#(\d+)$/.exec(location.hash);
  go(start ? parseInt(start[1], 10) - 1 : 0);
})();
"""


def _json_for_script(data: Any) -> str:
    """JSON that cannot end its ``<script>`` block early (``<``, ``>`` and ``&`` escaped)."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _seat_box(seat: int, strategy: str) -> str:
    s = seat
    return f"""<div class="seat" id="seat-{s}">
<h2>Seat {s} <span class="who">{html.escape(strategy)}</span>
<span class="badges" id="badges-{s}"></span></h2>
<div class="hand" id="hand-{s}"></div>
<div class="stats">in hand <b id="size-{s}"></b> · captured <b id="capt-{s}"></b> ·
game total <b id="total-{s}"></b></div>
</div>"""


def _alts_box(view: dict[str, Any]) -> str:
    """The panel of scored alternatives (only on a page built with --alternatives)."""
    alts = view.get("alternatives")
    if not alts:
        return ""
    seats = ", ".join(str(s) for s in alts["seats"])
    return f"""<div class="box" id="alts-box">
<h3>The alternatives of this step's decision (scored seats: {seats})</h3>
<p class="label">{html.escape(alts["label"])} Value: the round's score margin squashed to
0..1 (0.5 even) ± one standard error; round margin in points.</p>
<div id="alts-note"></div>
<div id="alts-scroll"><table id="alts"></table></div>
</div>"""


def render_page(view: dict[str, Any]) -> str:
    """The self-contained HTML page of one game (:func:`.game_view.build_view`'s data)."""
    n = view["players"]
    esc = html.escape
    strategies = view["strategies"]
    winner = view["winner"]
    final = " – ".join(str(x) for x in view["final"])
    seats = "; ".join(f"seat {k}: {esc(s)}" for k, s in enumerate(strategies))
    flags = ", ".join(f"{esc(k)} = {esc(str(v))}" for k, v in view["rule_flags"].items())
    notes = "".join(f'<p class="note">{esc(x)}</p>' for x in view["notes"])
    heads = "".join(
        f'<th colspan="6">seat {k}</th>' for k in range(n)
    )  # one group of score sources per seat
    sub = "<th>going out</th><th>cards</th><th>bets</th><th>bonus</th><th>round</th>"
    sub += "<th>total</th>"
    title = f"haggis-sim: game {view['game_id']} of {view['run']}"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)}</title>
<style>{CSS}</style>
</head>
<body>
<header>
<h1>Game {view["game_id"]} <span style="font-weight:400">of run {esc(view["run"])}</span></h1>
<p class="meta">Deal {view["deal_id"]} (run seed {view["seed"]}) · rules {esc(view["rules"])},
{n} players · {seats}</p>
<p class="meta" id="result">Winner: seat {winner} ({esc(strategies[winner])}) · final scores
{final} after {len(view["rounds"])} rounds</p>
<details><summary>every rule flag</summary>{flags}</details>
{notes}
</header>
<div class="controls">
<button id="b-first" title="first step (Home)">⇤ start</button>
<button id="b-ptrick" title="previous trick (↑ or Page Up)">▲ trick</button>
<button id="b-prev" title="previous step (←)">◀ step</button>
<button id="b-next" title="next step (→)">step ▶</button>
<button id="b-ntrick" title="next trick (↓ or Page Down)">trick ▼</button>
<button id="b-last" title="last step (End)">end ⇥</button>
<span id="pos"></span>
<span class="keys">keys: ← → step · ↑ ↓ or PgUp PgDn trick · Home End</span>
</div>
<main>
<div>
{"".join(_seat_box(k, s) for k, s in enumerate(strategies))}
<div class="table">
<div class="box"><h3 id="trick-title">Trick</h3><div id="trick"></div>
<h3 style="margin-top:8px" id="haggis-title">Haggis</h3><div class="hand" id="haggis"></div></div>
<div class="box"><div id="event-head"></div><div id="reading"></div>
<ul id="event-notes"></ul></div>
</div>
{_alts_box(view)}
</div>
<div class="box"><h3>This round, step by step</h3><div id="moves"></div></div>
</main>
<section class="scores">
<h3>Round scores by source, and running totals (rounds finished so far)</h3>
<div class="scroll"><table>
<thead><tr><th rowspan="2">round</th>{heads}</tr><tr>{sub * n}</tr></thead>
<tbody id="score-rows"></tbody>
</table></div>
</section>
<script type="application/json" id="game-data">{_json_for_script(view)}</script>
<script>{JS}</script>
</body>
</html>
"""
