"""libstdc++'s random numbers in numpy: ``std::mt19937`` and ``std::shuffle`` as OneFlow's C++ readers drew
them (the Megatron GPT loader's sample order, the COCO reader's image order), so orders match OneFlow's."""

from __future__ import annotations

import numpy as np

_URNG_RANGE = 0xFFFFFFFF  # std::mt19937: max() - min()


class MT19937:
    """``std::mt19937(seed)``'s raw 32-bit outputs, drawn in blocks by numpy's MT19937 (same algorithm;
    the state is seeded with ``init_genrand`` by hand, as the C++ constructor does)."""

    def __init__(self, seed: int) -> None:
        key = np.empty(624, np.uint32)
        x = seed & 0xFFFFFFFF
        for i in range(624):
            key[i] = x
            x = (1812433253 * (x ^ (x >> 30)) + i + 1) & 0xFFFFFFFF
        self._bits = np.random.MT19937()
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": 624}}
        self._ahead = np.empty(0, np.uint64)  # drawn but not used yet

    def peek(self, count: int) -> np.ndarray:
        """The next ``count`` outputs, left unused."""
        if len(self._ahead) < count:
            self._ahead = np.concatenate([self._ahead, self._bits.random_raw(count - len(self._ahead))])
        return self._ahead[:count]

    def take(self, count: int) -> None:
        self._ahead = self._ahead[count:]


def uniform_ints(gen: MT19937, outcomes: np.ndarray) -> np.ndarray:
    """One ``std::uniform_int_distribution(0, outcomes[s] - 1)(gen)`` per step ``s``, in order, as
    libstdc++ up to GCC 10 computes it: ``draw // scaling``, redrawing while ``draw >= outcomes*scaling``.

    Vectorised: only draws at or above the smallest threshold can be refused, so only those are walked in
    Python, in order, to find which step each one falls to.
    """
    outcomes = np.asarray(outcomes, np.uint64)
    if len(outcomes) == 0:
        return np.empty(0, np.int64)
    if int(outcomes.max()) > _URNG_RANGE + 1:
        raise ValueError("a range of more than 2**32 values needs libstdc++'s upscaling, which is not reproduced")
    scaling = np.uint64(_URNG_RANGE) // outcomes
    past = outcomes * scaling
    lowest = past.min()
    steps = len(outcomes)
    refused: list[int] = []
    checked = 0
    while True:
        total = steps + len(refused)
        draws = gen.peek(total)
        for p in (np.flatnonzero(draws[checked:total] >= lowest) + checked).tolist():
            if draws[p] >= past[p - len(refused)]:  # draw p went to step p - (refusals before it)
                refused.append(p)
        checked = total
        if steps + len(refused) == total:
            break
    used = np.ones(total, bool)
    used[refused] = False
    gen.take(total)
    return (draws[used] // scaling).astype(np.int64)


def swap_targets(n: int, gen: MT19937) -> np.ndarray:
    """``j`` such that libstdc++'s ``std::shuffle`` (GCC 7-10) of ``n`` items is ``swap(a[k], a[j[k]])``
    for ``k = 1 .. n-1``. While ``n*n`` fits the generator's range it draws one number per two swaps:
    for the pair at ``k, k+1``, ``x`` in ``[0, (k+1)(k+2))`` gives ``j[k] = x // (k+2)``,
    ``j[k+1] = x % (k+2)`` (after one lone swap at ``k = 1`` when ``n`` is even)."""
    j = np.zeros(n, np.int64)
    if n <= 1:
        return j
    if _URNG_RANGE // n >= n:
        first = 1 if n % 2 else 2
        k = np.arange(first, n, 2, dtype=np.int64)
        outcomes = (k + 1) * (k + 2)
        if first == 2:
            outcomes = np.concatenate([[2], outcomes])
        x = uniform_ints(gen, outcomes)
        if first == 2:
            j[1], x = x[0], x[1:]
        j[k] = x // (k + 2)
        j[k + 1] = x % (k + 2)
    else:
        j[1:] = uniform_ints(gen, np.arange(2, n + 1))
    return j


def apply_swaps(values: np.ndarray, j: np.ndarray) -> np.ndarray:
    """``values`` after ``swap(a[k], a[j[k]])`` for ``k = 1 .. n-1`` (``j[k] <= k``), without a Python loop.

    Item ``i`` is still at position ``i`` when step ``i`` moves it to ``j[i]``. After that, an item at
    position ``q`` moves only at the first later step ``k`` with ``j[k] == q``, to position ``k``; from
    there the next move is the first ``k' > k`` with ``j[k'] == k``, and so on. Those "next" links form
    chains, whose ends are found by pointer doubling.
    """
    n = len(values)
    if n <= 1:
        return values.copy()
    # steps grouped by target, each group in step order (one sort of target*n+step: faster than a
    # stable argsort)
    keys = np.sort(j * n + np.arange(n, dtype=np.int64))
    grouped, order = np.divmod(keys, n)
    del keys
    same = grouped[1:] == grouped[:-1]
    later = np.full(n, -1, np.int64)  # later[i]: the next step after i with the same target
    later[order[:-1][same]] = order[1:][same]
    heads = np.flatnonzero(np.concatenate([[True], ~same]))
    first = np.full(n, -1, np.int64)  # first[q]: the first step that targets q
    first[grouped[heads]] = order[heads]
    idx = np.arange(n)
    step_next = np.where(j == idx, later, first)  # position q's next move (steps targeting q come after q)
    end = np.where(step_next < 0, idx, step_next)
    while True:
        jumped = end[end]
        if np.array_equal(jumped, end):
            break
        end = jumped
    final = np.where(later < 0, j, end[np.maximum(later, 0)])
    out = np.empty_like(values)
    out[final] = values
    return out


def cxx_shuffle(values: np.ndarray, gen: MT19937) -> np.ndarray:
    """``std::shuffle(values, gen)`` as libstdc++ (GCC 7) does it."""
    return apply_swaps(values, swap_targets(len(values), gen))


# --------------------------------------------------------------------------------------- sample plan
