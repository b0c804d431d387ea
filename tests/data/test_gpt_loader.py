"""megatron_gpt_mmap_data_loader: Megatron token files, OneFlow's sample order (shuffled too, through its
libstdc++ generator), splits, steps, dtypes, the end of the data, resuming from a checkpoint, workers, and a
token file changed under the loader."""

from __future__ import annotations

import os
import pickle
import re
import struct
import textwrap
from pathlib import Path

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src import errors
from flowtorch._src.data import gpt_loader as gl
from flowtorch._src.data import rng

loader = gl.megatron_gpt_mmap_data_loader

# The token files of the spec's worked example (data_ops_spec.md §4.4).
EXAMPLE_DOCS = [[1, 2, 3, 4, 5], [10, 11, 12, 13], [20, 21, 22, 23, 24, 25, 26, 27]]
NUMPY_OF_CODE = {1: np.uint8, 2: np.int8, 3: np.int16, 4: np.int32, 5: np.int64, 6: np.float32, 7: np.float64,
                 8: np.uint16}


pytestmark = pytest.mark.usefixtures("in_process")  # fast; one test runs worker processes


def write_tokens(prefix: Path, docs, code: int = 8) -> str:
    """Megatron's MMapIndexedDataset: tokens back to back in .bin; the .idx header (magic, version 1,
    dtype code, counts), then int32 sizes, int64 byte offsets and the int64 document boundaries."""
    token = np.dtype(NUMPY_OF_CODE[code])
    arrays = [np.asarray(d, dtype=token) for d in docs]
    prefix.parent.mkdir(parents=True, exist_ok=True)
    Path(f"{prefix}.bin").write_bytes(b"".join(a.tobytes() for a in arrays))
    sizes = np.array([len(a) for a in arrays], dtype="<i4")
    offsets = np.concatenate([[0], np.cumsum(sizes * token.itemsize)[:-1]]).astype("<i8")
    header = b"MMIDIDX\x00\x00" + struct.pack("<QBQQ", 1, code, len(docs), len(docs) + 1)
    bounds = np.arange(len(docs) + 1, dtype="<i8")
    Path(f"{prefix}.idx").write_bytes(header + sizes.tobytes() + offsets[:len(docs)].tobytes() + bounds.tobytes())
    return str(prefix)


def gpt_job(prefix, name="gpt_job", **kwargs):
    kwargs.setdefault("seq_length", 4)
    kwargs.setdefault("num_samples", 5)
    kwargs.setdefault("batch_size", 1)

    def body() -> tp.Numpy:
        return loader(prefix, **kwargs)
    body.__name__ = name
    return flow.global_function()(body)


def rows(job, steps):
    return np.concatenate([job() for _ in range(steps)]).tolist()


def test_unshuffled_samples_follow_the_token_stream(tmp_path):
    prefix = write_tokens(tmp_path / "ex", EXAMPLE_DOCS)
    job = gpt_job(prefix, shuffle=False)
    # 17 tokens per epoch; 5 samples need 2 epochs, so 8 samples exist; consecutive samples share a token
    assert rows(job, 8) == [[1, 2, 3, 4, 5], [5, 10, 11, 12, 13], [13, 20, 21, 22, 23], [23, 24, 25, 26, 27],
                            [27, 1, 2, 3, 4], [4, 5, 10, 11, 12], [12, 13, 20, 21, 22], [22, 23, 24, 25, 26]]


def test_shuffled_order_is_oneflows_for_seed_1234(tmp_path):
    prefix = write_tokens(tmp_path / "ex", EXAMPLE_DOCS)
    job = gpt_job(prefix, shuffle=True, random_seed=1234)
    assert rows(job, 5) == [[10, 11, 12, 13, 20], [1, 2, 3, 4, 5], [24, 25, 26, 27, 1], [20, 21, 22, 23, 24],
                            [13, 1, 2, 3, 4]]
    plan = gl.plan_samples(np.array([5, 4, 8]), 4, 5, [1], 0, True, 1234)
    assert plan.docs.tolist() == [1, 2, 0, 1, 0, 2]  # one complete epoch, then the last one shuffled apart
    assert plan.order.tolist() == [0, 3, 2, 1, 5, 6, 4, 7]
    assert (plan.epochs, plan.complete_epochs, plan.tokens_per_epoch) == (2, 1, 17)


def test_mt19937_and_shuffle_match_libstdcxx():
    assert rng.MT19937(5489).peek(1).tolist() == [3499211612]  # the C++ standard's default-seed check
    assert rng.MT19937(12345).peek(5).tolist() == [3992670690, 3823185381, 1358822685, 561383553, 789925284]
    # std::shuffle of GCC 7 (two swaps per draw for small ranges)
    assert rng.cxx_shuffle(np.arange(10), rng.MT19937(524288)).tolist() == [1, 2, 7, 0, 6, 4, 5, 8, 9, 3]
    assert rng.cxx_shuffle(np.arange(7), rng.MT19937(12345)).tolist() == [0, 5, 4, 3, 2, 1, 6]


def reference_shuffle(n, gen):
    """GCC 7's std::shuffle written out one swap at a time, with the downscaling uniform_int."""
    def uniform(outcomes):
        scaling = 0xFFFFFFFF // outcomes
        while True:
            draw = int(gen.peek(1)[0])
            gen.take(1)
            if draw < outcomes * scaling:
                return draw // scaling
    a = list(range(n))
    if n <= 1:
        return a
    if 0xFFFFFFFF // n >= n:
        i = 1
        if n % 2 == 0:
            j = uniform(2)
            a[1], a[j] = a[j], a[1]
            i = 2
        while i < n:
            x = uniform((i + 1) * (i + 2))
            a[i], a[x // (i + 2)] = a[x // (i + 2)], a[i]
            a[i + 1], a[x % (i + 2)] = a[x % (i + 2)], a[i + 1]
            i += 2
    else:
        for i in range(1, n):
            j = uniform(i + 1)
            a[i], a[j] = a[j], a[i]
    return a


@pytest.mark.parametrize("n", [0, 1, 2, 9, 64, 1001, 65535, 65536, 70001])
def test_vectorised_shuffle_equals_the_swap_loop(n):
    fast, slow = rng.MT19937(n + 7), rng.MT19937(n + 7)
    assert rng.cxx_shuffle(np.arange(n), fast).tolist() == reference_shuffle(n, slow)
    assert fast.peek(3).tolist() == slow.peek(3).tolist()  # the same number of draws used


@pytest.mark.parametrize("corrupt, message", [
    (lambda b: b"XXIDIDX\x00\x00" + b[9:], "not the magic"),
    (lambda b: b[:17] + bytes([9]) + b[18:], "token dtype code 9"),
    (lambda b: b[:26] + struct.pack("<Q", 5) + b[34:], "3 sequences and 5 document boundaries"),
    (lambda b: b + b"\x00", "exactly 102 bytes; the file has 103"),
    (lambda b: b[:-8], "exactly 102 bytes; the file has 94"),
    (lambda b: b[:20], "fewer than the 34-byte header"),
])
def test_malformed_index_files_are_named(tmp_path, corrupt, message):
    prefix = write_tokens(tmp_path / "bad", EXAMPLE_DOCS)
    idx = Path(prefix + ".idx")
    idx.write_bytes(corrupt(idx.read_bytes()))
    with pytest.raises(errors.MegatronIndexError, match=message) as info:
        gpt_job(prefix)()
    assert str(idx) in str(info.value)


def test_missing_and_short_token_files(tmp_path):
    prefix = write_tokens(tmp_path / "t", EXAMPLE_DOCS)
    Path(prefix + ".bin").write_bytes(b"\x00" * 30)  # 15 of the 17 tokens
    with pytest.raises(errors.MegatronIndexError, match=r"document 2 \(of 3\) has tokens past the end of .*t\.bin"):
        gpt_job(prefix)()
    flow.clear_default_session()
    with pytest.raises(FileNotFoundError, match=r"nothere\.idx"):
        gpt_job(str(tmp_path / "nothere"))()


def test_empty_documents_are_passed_over(tmp_path):
    # OneFlow aborted on an empty document in the stream (CHECK_LT in InitSampleIndices)
    prefix = write_tokens(tmp_path / "e", [[1, 2, 3], [], [4, 5, 6]])
    assert rows(gpt_job(prefix, seq_length=3, num_samples=1, shuffle=False), 1) == [[1, 2, 3, 4]]


def test_workers_get_the_reader_without_the_plan(tmp_path):
    prefix = write_tokens(tmp_path / "ex", EXAMPLE_DOCS)
    job = gpt_job(prefix, batch_size=2, shuffle=False, start_from_saved_progress=True)
    first = job()
    source = job.feed.runner.sources[0]
    copy = pickle.loads(pickle.dumps(source))
    assert copy.order is None and copy.progress is None and source.order is not None
    np.testing.assert_array_equal(copy.fetch(gl._Batch(0, source.order[:2] * 4)), first)


def test_split_picks_rounded_shares_of_the_documents(tmp_path):
    docs = [[100 * d + t for t in range(6)] for d in range(5)]
    prefix = write_tokens(tmp_path / "s", docs)
    # 5 documents split 1:1: each share rounds 2.5 half-to-even to 2, so split 1 is documents 2 and 3
    # and document 4 belongs to no split (OneFlow does not hand out the remainder)
    job = gpt_job(prefix, name="second_half", seq_length=5, num_samples=2, batch_size=2, shuffle=False,
                  split_sizes=[1, 1], split_index=1)
    assert job().tolist() == [[200, 201, 202, 203, 204, 205], [205, 300, 301, 302, 303, 304]]
    assert gl.split_documents(10, [8, 1, 1], 2).tolist() == [9]
    with pytest.raises(ValueError, match=r"covers documents \[2, 4\), past the 3"):
        gl.split_documents(3, [1, 1], 1)


def test_split_index_out_of_range_is_value_and_attribute_error(tmp_path):
    prefix = write_tokens(tmp_path / "s", EXAMPLE_DOCS)
    for caught in (ValueError, AttributeError):
        flow.clear_default_session()
        with pytest.raises(caught, match=r"split index 3 is out of range, split_sizes \[949, 50, 1\]"):
            gpt_job(prefix, split_sizes=[949, 50, 1], split_index=3)()


def test_batches_run_on_across_steps_and_stop_at_the_last_sample(tmp_path):
    prefix = write_tokens(tmp_path / "ex", EXAMPLE_DOCS)
    one = gpt_job(prefix, name="one_by_one", random_seed=99)
    singles = rows(one, 8)
    three = gpt_job(prefix, name="three_at_a_time", batch_size=3, random_seed=99)
    assert three().tolist() == singles[0:3] and three().tolist() == singles[3:6]
    with pytest.raises(IndexError, match=r"step 2 needs samples \[6, 9\) but the dataset holds 8 .* at most 2 steps"):
        three()
    with pytest.raises(IndexError, match="step 8 needs"):
        one()


@pytest.mark.parametrize("dtype", [flow.int32, flow.int64])
def test_output_dtype_and_casts(tmp_path, dtype):
    big = [[2**31 + 5, -7, 3], [2**40, 11]]  # int64 tokens: int32 output wraps like static_cast
    prefix = write_tokens(tmp_path / "w", big, code=5)
    out = gpt_job(prefix, seq_length=4, num_samples=1, shuffle=False, dtype=dtype)()
    expected = np.array(big[0] + big[1], dtype=np.int64).astype(dtype.numpy_dtype)
    assert out.dtype == dtype.numpy_dtype and out.shape == (1, 5)
    np.testing.assert_array_equal(out[0], expected)
    flow.clear_default_session()
    prefix = write_tokens(tmp_path / "f", [[1.9, -2.7, 3.5, 4.0, 5.2]], code=6)  # float32 tokens truncate
    assert gpt_job(prefix, num_samples=1, shuffle=False, dtype=dtype)().tolist() == [[1, -2, 3, 4, 5]]


def test_bad_arguments(tmp_path):
    prefix = write_tokens(tmp_path / "ex", EXAMPLE_DOCS)
    for kwargs, message in [({"dtype": flow.float32}, "dtype' must be flow.int32 or flow.int64"),
                            ({"seq_length": 0}, "seq_length' must be a positive int"),
                            ({"parallel_distribution": ["S(1)"]}, "parallel_distribution"),
                            ({"split_sizes": ["1"]}, "split_sizes' must be a list of non-negative ints")]:
        flow.clear_default_session()
        with pytest.raises(ValueError, match=message):
            gpt_job(prefix, **kwargs)()


def test_graph_ops_slice_data_and_labels(tmp_path):
    prefix = write_tokens(tmp_path / "ex", EXAMPLE_DOCS)

    @flow.global_function()
    def job() -> tuple[tp.Numpy, tp.Numpy]:
        x = loader(prefix, seq_length=4, num_samples=5, batch_size=2, shuffle=False,
                   parallel_distribution=[flow.distribute.split(0), "B"])
        return flow.slice(x, begin=(None, 0), size=(None, 4)), flow.slice(x, begin=(None, 1), size=(None, 4))

    data, labels = job()
    assert data.tolist() == [[1, 2, 3, 4], [5, 10, 11, 12]]
    assert labels.tolist() == [[2, 3, 4, 5], [10, 11, 12, 13]]


def test_saved_progress_resumes_from_a_checkpoint(tmp_path):
    prefix = write_tokens(tmp_path / "ex", EXAMPLE_DOCS)
    var = "gpt_data_loader-iteration-sq4-sa5-bs2-sd7-sp9_1-spi0-S0_B"
    settings = dict(batch_size=2, random_seed=7, split_sizes=[9, 1], parallel_distribution=["S(0)", "B"],
                    start_from_saved_progress=True)
    job = gpt_job(prefix, **settings)
    first = [job().tolist() for _ in range(2)]
    assert flow.get_all_variables()[var].numpy().tolist() == [2]
    flow.checkpoint.save(str(tmp_path / "ckpt"))
    later = [job().tolist() for _ in range(2)]
    assert flow.get_all_variables()[var].numpy().tolist() == [4] and later != first

    flow.clear_default_session()
    job = gpt_job(prefix, **settings)
    flow.load_variables(flow.checkpoint.get(str(tmp_path / "ckpt")))
    assert [job().tolist() for _ in range(2)] == later
    assert flow.get_all_variables()[var].numpy().tolist() == [4]

    flow.clear_default_session()  # a fresh variable starts at step 0
    job = gpt_job(prefix, **settings)
    assert job().tolist() == first[0]


@pytest.mark.parametrize("workers", ["0", "2"])
def test_batches_do_not_depend_on_the_number_of_workers(tmp_path, monkeypatch, workers):
    rng = np.random.default_rng(0)
    docs = [rng.integers(0, 50000, rng.integers(1, 30)).tolist() for _ in range(40)]
    prefix = write_tokens(tmp_path / "many", docs)
    expected = gl.plan_samples(np.array([len(d) for d in docs]), 7, 60, [1], 0, True, 5)
    stream = np.concatenate([docs[d] for d in expected.docs])
    monkeypatch.setenv("FLOWTORCH_DATA_WORKERS", workers)
    job = gpt_job(prefix, seq_length=7, num_samples=60, batch_size=6, random_seed=5)
    got = np.concatenate([job() for _ in range(10)])
    starts = expected.order[:60] * 7
    np.testing.assert_array_equal(got, np.stack([stream[s:s + 8] for s in starts]))
    if workers == "2":
        assert len(job.feed.worker_pids) == 2


# ---- a token file changed after the job was built --------------------------------------------------------

LONG_DOCS = [list(range(1000 * d, 1000 * d + 500)) for d in range(20)]  # 20 000 bytes of uint16 tokens


def change_file(path: str, how: str, tmp_path: Path) -> None:
    if how == "truncated":
        os.truncate(path, 100)
    elif how == "replaced":  # another file of the same size renamed over it
        other = tmp_path / "other.bin"
        other.write_bytes(bytes(reversed(Path(path).read_bytes())))
        os.replace(other, path)
    elif how == "rewritten":  # same file, same size, new bytes
        st = os.stat(path)
        with open(path, "r+b") as f:
            f.write(b"\xff\xff")
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # past the file system's clock granularity
    else:
        os.remove(path)


@pytest.mark.parametrize(("how", "workers", "why"), [
    # a worker may have checked the file's size just before the cut and then read short: either is named
    ("truncated", "2", r"(it has 100 bytes, 20000 when the job was built|\d+ bytes expected at byte \d+, \d+ read)"),
    ("replaced", "0", "another file replaced it"),
    ("replaced", "2", "another file replaced it"),
    ("rewritten", "0", "it was rewritten"),
    ("removed", "0", "it cannot be opened any more"),
])
def test_a_token_file_changed_between_calls_is_named(tmp_path, monkeypatch, how, workers, why):
    # Before, a truncated file killed the process with SIGBUS (a worker's: "Bus error … shared memory"), and a
    # replaced or rewritten one was served silently, against the sample order planned from the old file.
    # (A truncated file read in-process is the subprocess test below: before, it crashed the process.)
    monkeypatch.setenv("FLOWTORCH_DATA_WORKERS", workers)
    prefix = write_tokens(tmp_path / "long", LONG_DOCS)
    job = gpt_job(prefix, seq_length=10, num_samples=900, shuffle=False)
    assert job().tolist() == [list(range(11))]
    change_file(f"{prefix}.bin", how, tmp_path)
    message = (rf"(?s)gpt_job.*Megatron token file {re.escape(repr(prefix + '.bin'))} changed after the job was built: "
               rf"{why if why.startswith('(') else re.escape(why)}")
    with pytest.raises(errors.DataFileChangedError, match=message):
        for _ in range(20):  # workers may serve the batches they prepared before the change
            job()


CUT_WHILE_READING = """
import os
import flowtorch as flow
import flowtorch.typing as tp

@flow.global_function()
def job() -> tp.Numpy:
    return flow.data.megatron_gpt_mmap_data_loader({prefix!r}, seq_length=1000, num_samples=15, batch_size=1,
                                                   shuffle=False)

print(job()[0, :3].tolist())
os.truncate({prefix!r} + ".bin", 0)
try:
    job()
except Exception as exc:
    print(type(exc).__name__, exc)
"""


def test_a_token_file_cut_under_an_in_process_loader_raises_instead_of_sigbus(tmp_path, run_py):
    # Before, reading a memory-mapped page past the new end of the file killed the process (SIGBUS, rc -7).
    prefix = write_tokens(tmp_path / "long", LONG_DOCS)
    (tmp_path / "cut.py").write_text(textwrap.dedent(CUT_WHILE_READING.format(prefix=prefix)))
    done = run_py(str(tmp_path / "cut.py"), env={"FLOWTORCH_DATA_WORKERS": "0"}, timeout=120)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    first, error = done.stdout.strip().splitlines()
    assert first == "[0, 1, 2]"
    assert error.startswith("DataFileChangedError ") and f"{prefix}.bin" in error and "has 0 bytes" in error
