"""Training the ``learned`` strategy's model (``haggis-sim train``): a layer above the runner.

:mod:`.positions` self-plays a teacher and records its decisions; :mod:`.fit` fits a
linear or hidden-layer model to them; :mod:`.improve` tunes a linear model by play
(stage 2) over :mod:`.games`, whole games in the runner's compiled loop; :mod:`.checks`
measures the result on held-out deals; :mod:`.train` puts the stages together,
:mod:`.provenance` records how, :mod:`.model_io` writes the model file that
:mod:`strategies.learned_model` reads and :mod:`.console` shows the command's progress;
:mod:`.settings` holds the records of settings these stages take.
``strategies`` keeps only what plays: the features, the model loading and the kernels.
"""
