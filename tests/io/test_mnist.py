"""Tests of load_mnist and the synthetic MNIST generator; none touches the network."""

from __future__ import annotations

import hashlib
import logging
import os
import re

import numpy as np
import pytest

from flowtorch._src import mnist
from flowtorch._src.mnist import DATA_ENV, load_mnist, make_synthetic_mnist

_REAL_DOWNLOAD = mnist._download_file  # saved before the autouse fixture replaces it


def _write_npz(path, n_train: int = 300, n_test: int = 200, seed: int = 1) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    arrays = {
        "x_train": rng.integers(0, 256, size=(n_train, 28, 28), dtype=np.uint8),
        "y_train": rng.integers(0, 10, size=n_train).astype(np.uint8),
        "x_test": rng.integers(0, 256, size=(n_test, 28, 28), dtype=np.uint8),
        "y_test": rng.integers(0, 10, size=n_test).astype(np.uint8),
    }
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return arrays


def _sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Run in an empty cwd, without $FLOWTORCH_DATA, with downloads forbidden."""
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv(DATA_ENV, raising=False)

    def no_network(url, dest, timeout=None):
        raise AssertionError(f"download attempted: {url} -> {dest}")

    monkeypatch.setattr(mnist, "_download_file", no_network)
    return work


def _notes(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "flowtorch"]


def test_nchw_shapes_dtypes_and_values(isolated, capsys, caplog):
    caplog.set_level(logging.INFO, logger="flowtorch")
    arrays = _write_npz(isolated / "mnist.npz")
    (train_x, train_y), (test_x, test_y) = load_mnist(100, 50, hash_check=None)

    assert train_x.shape == (3, 100, 1, 28, 28) and train_x.dtype == np.float32
    assert train_y.shape == (3, 100) and train_y.dtype == np.int32
    assert test_x.shape == (4, 50, 1, 28, 28) and test_x.dtype == np.float32
    assert test_y.shape == (4, 50) and test_y.dtype == np.int32
    np.testing.assert_allclose(
        train_x.reshape(300, 28, 28), arrays["x_train"].astype(np.float32) / 255.0, rtol=0, atol=0
    )
    np.testing.assert_array_equal(test_y.reshape(-1), arrays["y_test"])
    np.testing.assert_array_equal(train_x[1, 7, 0], arrays["x_train"][107] / np.float32(255))
    assert train_x.min() >= 0.0 and train_x.max() <= 1.0
    assert capsys.readouterr().out == ""  # OneFlow's note is logged (INFO), not printed
    assert _notes(caplog) == ["File mnist.npz already exist, path: ./mnist.npz"]


def test_nhwc_layout(isolated):
    arrays = _write_npz(isolated / "mnist.npz")
    (train_x, train_y), (test_x, test_y) = load_mnist(
        train_batch_size=60, test_batch_size=200, data_format="NHWC", hash_check=None
    )
    assert train_x.shape == (5, 60, 28, 28, 1) and train_y.shape == (5, 60)
    assert test_x.shape == (1, 200, 28, 28, 1) and test_y.shape == (1, 200)
    np.testing.assert_array_equal(test_x[0, 13, :, :, 0], arrays["x_test"][13] / np.float32(255))
    np.testing.assert_array_equal(train_y[2], arrays["y_train"][120:180])


def test_default_batch_sizes_and_returned_arrays_are_writable(isolated):
    _write_npz(isolated / "mnist.npz")
    (train_x, train_y), _ = load_mnist(hash_check=None)
    assert train_x.shape == (3, 100, 1, 28, 28)
    assert train_x.flags.writeable and train_y.flags.writeable


def test_remainder_is_dropped_with_warning(isolated, caplog):
    arrays = _write_npz(isolated / "mnist.npz")
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        (train_x, train_y), (test_x, _) = load_mnist(128, 100, hash_check=None)
    assert _notes(caplog) == ["load_mnist: train set has 300 samples, not a multiple of batch size 128; dropping "
                              "the last 44"]
    assert train_x.shape == (2, 128, 1, 28, 28) and train_y.shape == (2, 128)
    assert test_x.shape == (2, 100, 1, 28, 28)
    np.testing.assert_array_equal(train_y.reshape(-1), arrays["y_train"][:256])


@pytest.mark.parametrize("bad", [0, -5])
def test_non_positive_batch_size_is_rejected(isolated, bad):
    _write_npz(isolated / "mnist.npz")
    with pytest.raises(ValueError, match="test_batch_size must be positive"):
        load_mnist(100, bad, hash_check=None)


def test_hash_mismatch_warns_and_still_loads(isolated, caplog):
    _write_npz(isolated / "mnist.npz")
    with caplog.at_level(logging.INFO, logger="flowtorch"):
        (train_x, _), _ = load_mnist()
    assert train_x.shape == (3, 100, 1, 28, 28)
    [note, warning] = caplog.records
    assert note.levelno == logging.INFO and note.getMessage() == "File mnist.npz already exist, path: ./mnist.npz"
    assert warning.levelno == logging.WARNING
    assert re.fullmatch(r"load_mnist: sha256 of \./mnist\.npz is [0-9a-f]{64}, expected 63d43440[0-9a-f]{56}; "
                        "using the file anyway", warning.getMessage())


def test_a_synthetic_file_is_not_checked_against_the_real_digest(isolated, caplog):
    make_synthetic_mnist(str(isolated), n_train=100, n_test=100)
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        (train_x, _), _ = load_mnist()  # the default hash_check: the real file's
    assert train_x.shape == (1, 100, 1, 28, 28) and not caplog.records
    # The mark is what tells them apart: the same arrays without it are checked (and warned of).
    with np.load(isolated / "mnist.npz") as data:
        assert bool(data[mnist.SYNTHETIC_KEY])
        arrays = {k: data[k] for k in ("x_train", "y_train", "x_test", "y_test")}
    with open(isolated / "mnist.npz", "wb") as f:
        np.savez(f, **arrays)
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        load_mnist()
    assert [r.getMessage().split(" is ")[0] for r in caplog.records] == ["load_mnist: sha256 of ./mnist.npz"]


def test_matching_hash_and_disabled_check_do_not_warn(isolated, caplog):
    _write_npz(isolated / "mnist.npz")
    digest = _sha256(isolated / "mnist.npz")
    with caplog.at_level(logging.WARNING, logger="flowtorch"):
        load_mnist(hash_check=digest)
        load_mnist(hash_check=digest.upper())
        load_mnist(hash_check=None)
        load_mnist(hash_check="")
    assert not caplog.records
    assert mnist.MNIST_SHA256 == "63d4344077849053dc3036b247fa012b2b381de53fd055a66b539dffd76cf08e"


def test_out_dir_is_searched_before_cwd(isolated, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="flowtorch")
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    in_out_dir = _write_npz(data_dir / "mnist.npz", n_train=100, n_test=100, seed=2)
    _write_npz(isolated / "mnist.npz", seed=3)
    (train_x, _), _ = load_mnist(hash_check=None, out_dir=str(data_dir))
    assert train_x.shape == (1, 100, 1, 28, 28)
    np.testing.assert_array_equal(train_x[0, :, 0], in_out_dir["x_train"] / np.float32(255))
    assert _notes(caplog) == [f"File mnist.npz already exist, path: {data_dir / 'mnist.npz'}"]


def test_cwd_is_used_when_out_dir_lacks_the_file(isolated, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="flowtorch")
    _write_npz(isolated / "mnist.npz")
    (train_x, _), _ = load_mnist(hash_check=None, out_dir=str(tmp_path / "elsewhere"))
    assert train_x.shape == (3, 100, 1, 28, 28)
    assert _notes(caplog) == ["File mnist.npz already exist, path: ./mnist.npz"]


def test_env_var_directory(isolated, tmp_path, monkeypatch):
    data_dir = tmp_path / "shared"
    data_dir.mkdir()
    _write_npz(data_dir / "mnist.npz", n_train=200, n_test=100)
    monkeypatch.setenv(DATA_ENV, str(data_dir))
    (train_x, _), (test_x, _) = load_mnist(hash_check=None)
    assert train_x.shape == (2, 100, 1, 28, 28) and test_x.shape == (1, 100, 1, 28, 28)
    assert mnist.find_mnist(".") == str(data_dir / "mnist.npz")


def test_env_var_file_path(isolated, tmp_path, monkeypatch):
    data_file = tmp_path / "my_mnist_copy.npz"
    _write_npz(data_file, n_train=400, n_test=100)
    monkeypatch.setenv(DATA_ENV, str(data_file))
    (train_x, _), _ = load_mnist(hash_check=None)
    assert train_x.shape == (4, 100, 1, 28, 28)


def test_local_copies_win_over_env_var(isolated, tmp_path, monkeypatch):
    _write_npz(isolated / "mnist.npz", n_train=300)
    other = tmp_path / "other.npz"
    _write_npz(other, n_train=100)
    monkeypatch.setenv(DATA_ENV, str(other))
    (train_x, _), _ = load_mnist(hash_check=None)
    assert train_x.shape[0] == 3


def test_missing_file_and_failed_download_explain_where_to_put_it(isolated, tmp_path, monkeypatch):
    attempts = []

    def offline(url, dest, timeout=None):
        attempts.append((url, dest))
        raise OSError("Network is unreachable")

    monkeypatch.setattr(mnist, "_download_file", offline)
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "datasets"))
    out_dir = tmp_path / "out"
    with pytest.raises(FileNotFoundError) as info:
        load_mnist(out_dir=str(out_dir), url="https://example.invalid/mnist.npz")
    msg = str(info.value)
    assert attempts == [
        ("https://example.invalid/mnist.npz", os.path.join(str(out_dir), "mnist.npz"))
    ]
    assert "https://example.invalid/mnist.npz" in msg and "Network is unreachable" in msg
    assert os.path.join(str(out_dir), "mnist.npz") in msg
    assert os.path.join(str(isolated), "mnist.npz") in msg
    assert os.path.join(str(tmp_path / "datasets"), "mnist.npz") in msg
    assert "$FLOWTORCH_DATA" in msg and "Put a copy of mnist.npz" in msg
    assert isinstance(info.value.__cause__, OSError)


def test_successful_download_is_used(isolated, monkeypatch, caplog):
    caplog.set_level(logging.INFO, logger="flowtorch")
    def fake_download(url, dest, timeout=None):
        _write_npz(dest, n_train=100, n_test=100)

    monkeypatch.setattr(mnist, "_download_file", fake_download)
    (train_x, _), _ = load_mnist(hash_check=None)
    assert train_x.shape == (1, 100, 1, 28, 28)
    assert (isolated / "mnist.npz").is_file()
    assert "File mnist.npz already exist, path: ./mnist.npz" in _notes(caplog)


def test_real_downloader_copies_a_file_url_without_partial_files(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="flowtorch")
    source = tmp_path / "src.npz"
    _write_npz(source, n_train=100, n_test=100)
    dest = tmp_path / "dl" / "mnist.npz"
    _REAL_DOWNLOAD(source.as_uri(), str(dest), timeout=5)
    assert dest.read_bytes() == source.read_bytes()
    assert os.listdir(tmp_path / "dl") == ["mnist.npz"]
    assert any("downloading..." in note for note in _notes(caplog))
    with pytest.raises(OSError):
        _REAL_DOWNLOAD((tmp_path / "absent.npz").as_uri(), str(tmp_path / "x" / "mnist.npz"))
    assert not (tmp_path / "x").exists()


def test_npz_missing_keys_is_a_clear_error(isolated):
    with open(isolated / "mnist.npz", "wb") as f:
        np.savez(f, x_train=np.zeros((1, 28, 28), np.uint8))
    with pytest.raises(ValueError, match=r"mnist\.npz as an MNIST \.npz file: missing arrays"):
        load_mnist(hash_check=None)


def test_pickled_npz_is_refused(isolated):
    objs = np.empty(2, dtype=object)
    objs[:] = [{"a": 1}, None]
    with open(isolated / "mnist.npz", "wb") as f:
        np.savez(f, x_train=objs, y_train=objs, x_test=objs, y_test=objs)
    with pytest.raises(ValueError, match="allow_pickle"):
        load_mnist(hash_check=None)


def test_not_an_npz_is_a_clear_error(isolated):
    (isolated / "mnist.npz").write_bytes(b"<html>proxy error</html>")
    with pytest.raises(ValueError, match="cannot read ./mnist.npz as an MNIST .npz file"):
        load_mnist(hash_check=None)


def test_badly_shaped_arrays_are_rejected(isolated):
    with open(isolated / "mnist.npz", "wb") as f:
        np.savez(
            f,
            x_train=np.zeros((10, 784), np.uint8),
            y_train=np.zeros(10, np.uint8),
            x_test=np.zeros((10, 28, 28), np.uint8),
            y_test=np.zeros(10, np.uint8),
        )
    with pytest.raises(ValueError, match=r"x_train must be \(N, H, W\).*\(10, 784\)"):
        load_mnist(hash_check=None)


# --------------------------------------------------------------------------- synthetic data


def test_make_synthetic_mnist_format(isolated, tmp_path):
    path = make_synthetic_mnist(str(tmp_path), n_train=120, n_test=40, seed=3)
    assert path == os.path.join(str(tmp_path), "mnist.npz")
    with np.load(path, allow_pickle=False) as data:
        assert sorted(data.files) == ["flowtorch_synthetic", "x_test", "x_train", "y_test", "y_train"]
        assert data["x_train"].shape == (120, 28, 28) and data["x_train"].dtype == np.uint8
        assert data["x_test"].shape == (40, 28, 28)
        assert data["y_train"].shape == (120,) and data["y_train"].dtype == np.uint8
        assert set(np.unique(data["y_train"])) <= set(range(10))
        assert len(np.unique(data["y_train"])) == 10
    assert sorted(os.listdir(tmp_path)) == ["cwd", "mnist.npz"]
    explicit = make_synthetic_mnist(str(tmp_path / "sub" / "fake.npz"), 10, 10)
    assert explicit == str(tmp_path / "sub" / "fake.npz") and os.path.isfile(explicit)


def test_make_synthetic_mnist_is_deterministic(tmp_path):
    a = make_synthetic_mnist(str(tmp_path / "a.npz"), 50, 20, seed=7)
    b = make_synthetic_mnist(str(tmp_path / "b.npz"), 50, 20, seed=7)
    c = make_synthetic_mnist(str(tmp_path / "c.npz"), 50, 20, seed=8)
    with np.load(a) as da, np.load(b) as db, np.load(c) as dc:
        np.testing.assert_array_equal(da["x_train"], db["x_train"])
        np.testing.assert_array_equal(da["y_test"], db["y_test"])
        assert not np.array_equal(da["x_train"], dc["x_train"])


def test_synthetic_mnist_is_learnable_by_a_small_mlp(isolated):
    torch = pytest.importorskip("torch")
    make_synthetic_mnist(str(isolated), n_train=1000, n_test=200, seed=0)
    (train_x, train_y), (test_x, test_y) = load_mnist(50, 200)
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Flatten(), torch.nn.Linear(784, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10)
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for step in range(300):
        i = step % len(train_x)
        logits = model(torch.from_numpy(train_x[i]))
        loss = torch.nn.functional.cross_entropy(logits, torch.from_numpy(train_y[i]).long())
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        pred = model(torch.from_numpy(test_x[0])).argmax(1).numpy()
    assert (pred == test_y[0]).mean() >= 0.95
