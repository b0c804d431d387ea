"""Random ops: mask statistics and dtype, seeded repeatability, coin flip / bernoulli names, shuffle."""

import numpy as np
from helpers.ops import expect_error, lbns, make_job, run

import flowtorch as flow
import flowtorch.nn
import flowtorch.random


def test_random_mask_like_rate_and_dtype():
    x = np.zeros((100, 100), np.float32)
    m = run(lambda a: flow.nn.random_mask_like(a, 0.3), x)
    assert m.dtype == np.int8 and set(np.unique(m)) <= {0, 1}
    assert abs(m.mean() - 0.7) < 0.03


def test_seeded_ops_repeat_across_sessions():
    x = np.full((50,), 0.5, np.float32)
    a = run(lambda b: flow.random.bernoulli(b, seed=7), x)
    flow.clear_default_session()
    b = run(lambda b: flow.random.bernoulli(b, seed=7), x)
    np.testing.assert_array_equal(a, b)
    assert set(np.unique(a)) <= {0.0, 1.0} and a.dtype == np.float32


def test_coin_flip_and_bernoulli_module_names():
    x = np.full((4,), 0.5, np.float32)
    seen = []

    def body(a):
        seen.extend([flow.random.CoinFlip(batch_size=4), flow.random.coin_flip(batch_size=2, probability=1.0),
                     flow.random.bernoulli(a), flow.random.bernoulli(a, dtype=flow.int32)])
        return seen[1]
    out = make_job(body, [x])(x)
    np.testing.assert_array_equal(out, [1, 1])
    names = lbns(seen)
    assert names[0] == "CoinFlip/out_0" and names[1].startswith("CoinFlip_")
    assert names[2] == "Bernoulli/out_0" and names[3].startswith("Bernoulli_")
    assert seen[0].dtype == flow.int8 and seen[0].shape == (4,) and seen[3].dtype == flow.int32


def test_shuffle_permutes_the_first_axis():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    seen = []

    def body(a):
        seen.append(flow.random.shuffle(a))
        return seen[0]
    y = make_job(body, [x])(x)
    np.testing.assert_array_equal(np.sort(y[:, 0]), x[:, 0])
    np.testing.assert_array_equal(y[:, 1], y[:, 0] + 1)
    perm_ops = [b.op_name for b in seen[0].builder.all_blobs if "_random_batch_permutation_indices" in b.op_name]
    assert perm_ops and perm_ops[0].startswith("Input_")
    assert seen[0].op_name.startswith("Gather_")


def test_random_arg_errors():
    with expect_error(ValueError, match=r"flow.random.CoinFlip: argument 'probability' must be a float in \[0, 1\]; "
                                        r"received 2"):
        run(lambda a: flow.random.CoinFlip(2, probability=2), np.zeros(1, np.float32))
