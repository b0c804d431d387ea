"""``oneflow.optimizer``: optimizers (``.minimize(loss)``), learning-rate schedulers, warmup, clipping."""

from flowtorch._src.optim.adam import LAMB as LAMB
from flowtorch._src.optim.adam import Adam as Adam
from flowtorch._src.optim.adam import AdamW as AdamW
from flowtorch._src.optim.adam import LazyAdam as LazyAdam
from flowtorch._src.optim.clipping import grad_clipping as grad_clipping
from flowtorch._src.optim.clipping import loss_scale as loss_scale
from flowtorch._src.optim.combined import CombinedOptimizer as CombinedOptimizer
from flowtorch._src.optim.rmsprop import RMSProp as RMSProp
from flowtorch._src.optim.schedulers import CosineScheduler as CosineScheduler
from flowtorch._src.optim.schedulers import CustomScheduler as CustomScheduler
from flowtorch._src.optim.schedulers import ExponentialScheduler as ExponentialScheduler
from flowtorch._src.optim.schedulers import InverseTimeScheduler as InverseTimeScheduler
from flowtorch._src.optim.schedulers import LinearCosineScheduler as LinearCosineScheduler
from flowtorch._src.optim.schedulers import NaturalExpScheduler as NaturalExpScheduler
from flowtorch._src.optim.schedulers import PiecewiseConstantScheduler as PiecewiseConstantScheduler
from flowtorch._src.optim.schedulers import PiecewiseScalingScheduler as PiecewiseScalingScheduler
from flowtorch._src.optim.schedulers import PolynomialSchduler as PolynomialSchduler
from flowtorch._src.optim.schedulers import PolynomialScheduler as PolynomialScheduler
from flowtorch._src.optim.schedulers import warmup as warmup
from flowtorch._src.optim.sgd import LARS as LARS
from flowtorch._src.optim.sgd import SGD as SGD
from flowtorch._src.optim.sgd import SGDW as SGDW

__all__ = ["LAMB", "LARS", "SGD", "SGDW", "Adam", "AdamW", "CombinedOptimizer", "CosineScheduler", "CustomScheduler",
           "ExponentialScheduler", "InverseTimeScheduler", "LazyAdam", "LinearCosineScheduler", "NaturalExpScheduler",
           "PiecewiseConstantScheduler", "PiecewiseScalingScheduler", "PolynomialSchduler", "PolynomialScheduler",
           "RMSProp", "grad_clipping", "loss_scale", "warmup"]
