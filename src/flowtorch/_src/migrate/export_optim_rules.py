"""The ``torch.optim.Optimizer`` subclasses an exported train job's ``model.py`` carries: OneFlow's update
rules written for PyTorch, so the export continues a job exactly at any learning rate (0 included).

The text here is what the export writes (after ``export_optim`` picks the class a job needs): the base class
``OneFlowOptimizer`` (what every rule shares: OneFlow's clipping by global norm, and the row-by-row update of
``indexed_slices_optimizer_conf``) and one class per rule. Each rule is flowtorch's own, which reproduces
OneFlow's kernels (``oneflow/user/kernels/model_update_kernel_util.h``; the v0.3.4 forms flowtorch follows):

* ``OneFlowSGD`` — :class:`flowtorch._src.optim.sgd.SGD`/``SGDW``: OneFlow's momentum ``v`` holds the rate
  (``v = m·v − lr·g``), so it is kept as it is, not as ``torch.optim.SGD``'s ``b = −v / lr``;
* ``OneFlowAdam`` — ``Adam``/``AdamW``/``LazyAdam`` (:mod:`flowtorch._src.optim.adam`): ε added to ``√v``,
  the bias correction applied to the rate in float32 (OneFlow's ``adam_bias_correction_learning_rate``);
* ``OneFlowRMSProp`` — :class:`flowtorch._src.optim.rmsprop.RMSProp`: ε inside the root;
* ``OneFlowLAMB`` — :class:`flowtorch._src.optim.adam.LAMB` (``beta_t`` one step ahead, ε inside the root);
* ``OneFlowLARS`` — :class:`flowtorch._src.optim.sgd.LARS`.

Each class's ``update(group, w, g, state)`` changes ``w`` and the tensors of ``state`` in place; its state
keys follow ``torch.optim`` where the meaning is the same (``exp_avg``, ``exp_avg_sq``, ``square_avg``,
``grad_avg``, ``step``: the updates done so far) and are ``momentum`` for OneFlow's momentum slot ``v``.
"""

from __future__ import annotations

BASE = '''

class OneFlowOptimizer(torch.optim.Optimizer):
    """What OneFlow's optimizers share (flowtorch: optim/base.py, after OneFlow's optimizer pass).

    step() first clips the gradients when clip_norm is set, as OneFlow's grad_clipping.by_global_norm: every
    gradient times min(1 / global_norm, 1 / clip_norm) (no final * clip_norm, unlike clip_grad_norm_). Then
    the subclass's update(group, w, g, state) changes each parameter w and its state in place. A group with
    lazy_rows=True is updated row by row, as OneFlow's indexed_slices_optimizer_conf: only the rows whose
    gradient is not all zero change, their state included (OneFlow: the rows the batch gathered).
    """

    def __init__(self, params, defaults, clip_norm=None):
        super().__init__(params, defaults)
        self.clip_norm = clip_norm

    def init_state(self, group, p):
        """The state of a parameter before its first update (OneFlow's slots start at zero)."""
        return {}

    def update(self, group, w, g, state):
        raise NotImplementedError

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        if self.clip_norm is not None:
            self._clip_by_global_norm()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state.update(self.init_state(group, p))
                if group.get("lazy_rows"):
                    self._update_rows(group, p, state)
                else:
                    self.update(group, p, p.grad, state)
        return loss

    def _clip_by_global_norm(self):
        grads = [p.grad for group in self.param_groups for p in group["params"] if p.grad is not None]
        if grads:
            square_sum = torch.stack([torch.linalg.vector_norm(g) for g in grads]).square().sum()
            factor = torch.clamp(torch.rsqrt(square_sum), max=1.0 / self.clip_norm)
            for g in grads:
                g.mul_(factor)

    def _update_rows(self, group, p, state):
        g = p.grad
        rows = g.reshape(g.shape[0], -1).ne(0).any(dim=1).nonzero().squeeze(1)
        per_row = [k for k, v in state.items() if torch.is_tensor(v) and v.shape == p.shape]
        picked = {k: v.index_select(0, rows) if k in per_row else v for k, v in state.items()}
        w = p.index_select(0, rows)
        self.update(group, w, g.index_select(0, rows), picked)
        p.index_copy_(0, rows, w)
        for k, v in picked.items():
            if k in per_row:
                state[k].index_copy_(0, rows, v)
            else:
                state[k] = v
'''

SGD = '''

class OneFlowSGD(OneFlowOptimizer):
    """OneFlow's SGD and SGDW (flowtorch: optim/sgd.py; OneFlow's sgd_update and momentum_update kernels),
    on the gradient g of objective():

        momentum == 0:  w = w - lr * (g + weight_decay * w)
        otherwise:      v = momentum * v - lr * g;  w = w + v - lr * weight_decay * w

    state["momentum"] is OneFlow's slot <variable>-momentum (v). It holds the rate, which torch.optim.SGD's
    buffer does not, so the update is OneFlow's under any schedule, a rate of 0 included.
    """

    def __init__(self, params, lr, momentum=0.0, weight_decay=0.0, clip_norm=None):
        super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay), clip_norm)

    def init_state(self, group, p):
        return {"momentum": torch.zeros_like(p)} if group["momentum"] else {}

    def update(self, group, w, g, state):
        lr, momentum, decay = group["lr"], group["momentum"], group["weight_decay"]
        if momentum:
            v = state["momentum"]
            v.mul_(momentum).add_(g, alpha=-lr)
        if decay:
            w.mul_(1.0 - lr * decay)
        if momentum:
            w.add_(v)
        else:
            w.add_(g, alpha=-lr)
'''

ADAM = '''

class OneFlowAdam(OneFlowOptimizer):
    """OneFlow's Adam, AdamW and LazyAdam (flowtorch: optim/adam.py; OneFlow's adam_update kernel), on the
    gradient g of objective():

        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        w = w - lr_t * (m / (sqrt(v) + eps) + weight_decay * w)

    with lr_t = lr * sqrt(1 - beta2**t) / (1 - beta1**t) at the t-th update, in float32, when bias_correction
    (OneFlow's adam_bias_correction_learning_rate), else lr (OneFlow's default). Unlike torch.optim.Adam,
    epsilon is added to sqrt(v) before the correction. state: exp_avg (OneFlow's slot m), exp_avg_sq (v), step.
    """

    def __init__(self, params, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, bias_correction=False,
                 clip_norm=None):
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, bias_correction=bias_correction)
        super().__init__(params, defaults, clip_norm)

    def init_state(self, group, p):
        return {"step": 0, "exp_avg": torch.zeros_like(p), "exp_avg_sq": torch.zeros_like(p)}

    def update(self, group, w, g, state):
        beta1, beta2 = group["betas"]
        state["step"] += 1
        lr = group["lr"]
        if group["bias_correction"]:
            t = state["step"]
            lr = _f32(lr * math.sqrt(_f32(1.0 - _f32(_f32(beta2) ** t))) / _f32(1.0 - _f32(_f32(beta1) ** t)))
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m.mul_(beta1).add_(g, alpha=1.0 - beta1)
        v.mul_(beta2).addcmul_(g, g, value=1.0 - beta2)
        if group["weight_decay"]:
            w.mul_(1.0 - lr * group["weight_decay"])
        w.addcdiv_(m, v.sqrt().add_(group["eps"]), value=-lr)
'''

RMSPROP = '''

class OneFlowRMSProp(OneFlowOptimizer):
    """OneFlow's RMSProp (flowtorch: optim/rmsprop.py; OneFlow's rmsprop_update kernel), on the gradient g of
    objective(), with d = decay_rate:

        square_avg = d * square_avg + (1 - d) * g * g
        centered:  grad_avg = d * grad_avg + (1 - d) * g;  w = w - lr * g / sqrt(square_avg - grad_avg**2 + eps)
        otherwise: w = w - lr * g / sqrt(square_avg + eps)

    Unlike torch.optim.RMSprop, epsilon is inside the root. square_avg and grad_avg are OneFlow's slots
    mean_square and mean_gradient.
    """

    def __init__(self, params, lr, decay_rate=0.99, eps=1e-8, centered=False, clip_norm=None):
        super().__init__(params, dict(lr=lr, decay_rate=decay_rate, eps=eps, centered=centered), clip_norm)

    def init_state(self, group, p):
        state = {"square_avg": torch.zeros_like(p)}
        if group["centered"]:
            state["grad_avg"] = torch.zeros_like(p)
        return state

    def update(self, group, w, g, state):
        d = group["decay_rate"]
        square_avg = state["square_avg"]
        square_avg.mul_(d).addcmul_(g, g, value=1.0 - d)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg.mul_(d).add_(g, alpha=1.0 - d)
            denom = square_avg.addcmul(grad_avg, grad_avg, value=-1.0).add_(group["eps"])
        else:
            denom = square_avg.add(group["eps"])
        w.addcdiv_(g, denom.sqrt_(), value=-group["lr"])
'''

LAMB = '''

class OneFlowLAMB(OneFlowOptimizer):
    """OneFlow's LAMB (flowtorch: optim/adam.py, LAMB; OneFlow's lamb_update kernel of v0.3.4), on the
    gradient g of objective(), at the t-th update:

        m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g * g
        u = (m / (1 - beta1**(t+1))) / sqrt(v / (1 - beta2**(t+1)) + eps)
        trust = |w| / |u| (1 when either norm is 0)
        w = w - lr * trust * (u + weight_decay * w)

    OneFlow's beta_t variables are multiplied by beta before their first use, hence t + 1. state: exp_avg
    (OneFlow's slot m), exp_avg_sq (v), step.
    """

    def __init__(self, params, lr, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0, clip_norm=None):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay), clip_norm)

    def init_state(self, group, p):
        return {"step": 0, "exp_avg": torch.zeros_like(p), "exp_avg_sq": torch.zeros_like(p)}

    def update(self, group, w, g, state):
        beta1, beta2 = group["betas"]
        state["step"] += 1
        t = state["step"]
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m.mul_(beta1).add_(g, alpha=1.0 - beta1)
        v.mul_(beta2).addcmul_(g, g, value=1.0 - beta2)
        denom = (v * (1.0 / (1.0 - beta2 ** (t + 1)))).add_(group["eps"]).sqrt_()
        u = (m / denom).mul_(1.0 / (1.0 - beta1 ** (t + 1)))
        w_norm, u_norm = torch.linalg.vector_norm(w), torch.linalg.vector_norm(u)
        trust = torch.where((w_norm > 0) & (u_norm > 0), w_norm / u_norm, torch.ones_like(w_norm))
        if group["weight_decay"]:
            u.add_(w, alpha=group["weight_decay"])
        w.addcmul_(u, trust, value=-group["lr"])
'''

LARS = '''

class OneFlowLARS(OneFlowOptimizer):
    """OneFlow's LARS (flowtorch: optim/sgd.py, LARS; OneFlow's lars_update kernel of v0.3.4), on the
    gradient g of objective(), at the t-th update, with norms over the whole tensor:

        local_lr = lr * lars_coefficient * |w| / (|g| * (1 + weight_decay if t > 1 else 1) + eps)
        v = momentum * v - local_lr * (g + weight_decay * w);  w = w + v

    state: momentum (OneFlow's slot <variable>-momentum, v), step.
    """

    def __init__(self, params, lr, momentum=0.9, eps=1e-9, lars_coefficient=0.0001, weight_decay=0.0,
                 clip_norm=None):
        defaults = dict(lr=lr, momentum=momentum, eps=eps, lars_coefficient=lars_coefficient,
                        weight_decay=weight_decay)
        super().__init__(params, defaults, clip_norm)

    def init_state(self, group, p):
        return {"step": 0, "momentum": torch.zeros_like(p)}

    def update(self, group, w, g, state):
        state["step"] += 1
        decay = group["weight_decay"]
        w_norm, g_norm = torch.linalg.vector_norm(w), torch.linalg.vector_norm(g)
        if decay and state["step"] > 1:
            denom = g_norm * (1.0 + decay) + group["eps"]
        else:
            denom = g_norm + group["eps"]
        local_lr = w_norm * (group["lr"] * group["lars_coefficient"]) / denom
        if decay:
            g = g + decay * w
        state["momentum"].mul_(group["momentum"]).addcmul_(g, local_lr, value=-1.0)
        w.add_(state["momentum"])
'''

#: class name → its source (each after BASE in the file)
CLASSES = {"OneFlowSGD": SGD, "OneFlowAdam": ADAM, "OneFlowRMSProp": RMSPROP, "OneFlowLAMB": LAMB,
           "OneFlowLARS": LARS}
