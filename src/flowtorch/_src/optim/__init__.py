"""Training pieces of ``flow.optimizer``: schedulers, optimizers, clipping and loss scaling.

Modules (import them directly; this package imports none of them so that each can be loaded
on its own):

* ``schedulers`` -- learning-rate schedules with OneFlow's exact formulas and warmups
  (``flow.optimizer.*Scheduler``, ``flow.optimizer.warmup``).
* ``clipping`` -- ``flow.optimizer.grad_clipping`` and ``flow.optimizer.loss_scale``.
* ``base`` -- the ``Optimizer`` base: ``minimize`` hands the optimizer to the job builder,
  ``apply`` performs one update step on torch tensors.
* ``sgd`` (SGD, SGDW, LARS), ``adam`` (Adam, AdamW, LazyAdam, LAMB), ``rmsprop``, ``combined``
  (CombinedOptimizer) -- the update rules of ``flow.optimizer.SGD`` ... ``CombinedOptimizer``.

Everything here works on plain tensors and never needs a running job.
"""

from __future__ import annotations


