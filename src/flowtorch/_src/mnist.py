"""``flow.data.load_mnist`` and a synthetic MNIST generator.

The data set is the Keras-style ``mnist.npz`` (``x_train``/``x_test``: uint8
``(N, 28, 28)``; ``y_train``/``y_test``: integer labels ``(N,)``) that OneFlow
downloaded. flowtorch reads a local copy first and only tries the network when
none exists (see the spec, §10). Its notes go to the "flowtorch" logger.
"""

from __future__ import annotations

import hashlib
import logging
import operator
import os
import secrets
import urllib.request
import zipfile

import numpy as np

__all__ = [
    "MNIST_URL",
    "MNIST_SHA256",
    "DATA_ENV",
    "load_mnist",
    "find_mnist",
    "make_synthetic_mnist",
]

MNIST_URL = "https://oneflow-public.oss-cn-beijing.aliyuncs.com/datasets/mnist.npz"
MNIST_SHA256 = "63d4344077849053dc3036b247fa012b2b381de53fd055a66b539dffd76cf08e"
DATA_ENV = "FLOWTORCH_DATA"
FILENAME = "mnist.npz"
DOWNLOAD_TIMEOUT_S = 20.0
_KEYS = ("x_train", "y_train", "x_test", "y_test")
SYNTHETIC_KEY = "flowtorch_synthetic"  # in the files make_synthetic_mnist writes: no digest to check them against

log = logging.getLogger("flowtorch")

Split = tuple[np.ndarray, np.ndarray]


def _candidates(out_dir: str) -> list[str]:
    """Paths where ``mnist.npz`` may be, in search order, without duplicates."""
    paths = [os.path.join(out_dir, FILENAME), os.path.join(".", FILENAME)]
    env = os.environ.get(DATA_ENV)
    if env:
        is_file = os.path.isfile(env) or (not os.path.isdir(env) and env.endswith(".npz"))
        paths.append(env if is_file else os.path.join(env, FILENAME))
    unique: list[str] = []
    seen: set[str] = set()
    for p in paths:
        key = os.path.normcase(os.path.abspath(p))
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return unique


def find_mnist(out_dir: str = ".") -> str | None:
    """Return the first existing ``mnist.npz`` (``out_dir``, cwd, ``$FLOWTORCH_DATA``)."""
    for path in _candidates(out_dir):
        if os.path.isfile(path):
            return path
    return None


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download_file(url: str, dest: str, timeout: float = DOWNLOAD_TIMEOUT_S) -> None:
    """Fetch ``url`` into ``dest`` via a temporary file, so no partial file remains."""
    with urllib.request.urlopen(url, timeout=timeout) as resp:
        length = resp.headers.get("Content-Length")
        if length is not None:
            log.info("File size: %.4f kb, downloading...", int(length) / 1024)
        out_dir = os.path.dirname(os.path.abspath(dest))
        os.makedirs(out_dir, exist_ok=True)
        tmp = os.path.join(out_dir, f".{FILENAME}.part-{secrets.token_hex(4)}")
        try:
            with open(tmp, "wb") as f:
                for block in iter(lambda: resp.read(1 << 16), b""):
                    f.write(block)
            os.replace(tmp, dest)
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise
    log.info("Done!")


def _obtain(url: str, out_dir: str) -> str:
    found = find_mnist(out_dir)
    if found is not None:
        return found
    dest = os.path.join(out_dir, FILENAME)
    try:
        _download_file(url, dest)
    except Exception as exc:  # any network/HTTP/file failure ends the same way
        searched = "\n".join(f"  {os.path.abspath(p)}" for p in _candidates(out_dir))
        raise FileNotFoundError(
            f"{FILENAME} was not found and downloading it from {url} failed "
            f"({type(exc).__name__}: {exc}).\n"
            f"Searched:\n{searched}\n"
            f"Put a copy of {FILENAME} (Keras format: x_train, y_train, x_test, y_test) "
            f"at {os.path.abspath(dest)} or in the current directory, or set "
            f"${DATA_ENV} to the directory holding {FILENAME} or to the file itself."
        ) from exc
    return dest


def _read_npz(path: str) -> tuple[dict[str, np.ndarray], bool]:
    """The four arrays of ``path``, and whether :func:`make_synthetic_mnist` wrote it."""
    try:
        data = np.load(path, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ValueError("not an .npz archive")
        with data:
            missing = [k for k in _KEYS if k not in data.files]
            if missing:
                raise ValueError(f"missing arrays {missing} (has {sorted(data.files)})")
            arrays = {k: data[k] for k in _KEYS}
            synthetic = SYNTHETIC_KEY in data.files
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise ValueError(f"cannot read {path} as an MNIST .npz file: {exc}") from exc
    for split in ("train", "test"):
        x, y = arrays[f"x_{split}"], arrays[f"y_{split}"]
        if x.ndim != 3 or y.ndim != 1 or len(x) != len(y):
            raise ValueError(
                f"{path}: x_{split} must be (N, H, W) and y_{split} (N,); "
                f"got {x.shape} and {y.shape}"
            )
    return arrays, synthetic


def _batch(x: np.ndarray, y: np.ndarray, batch_size: int, data_format: str, split: str) -> Split:
    n_batches, remainder = divmod(len(x), batch_size)
    if remainder:
        # OneFlow's reshape failed here; dropping the tail is the permissive choice.
        log.warning("load_mnist: %s set has %d samples, not a multiple of batch size %d; dropping the last %d",
                    split, len(x), batch_size, remainder)
    n = n_batches * batch_size
    images = x[:n].astype(np.float32) / np.float32(255.0)
    height, width = x.shape[1], x.shape[2]
    # As in OneFlow, any format other than "NCHW" means channels-last.
    if data_format == "NCHW":
        images = images.reshape(n_batches, batch_size, 1, height, width)
    else:
        images = images.reshape(n_batches, batch_size, height, width, 1)
    labels = y[:n].astype(np.int32).reshape(n_batches, batch_size)
    return images, labels


def load_mnist(
    train_batch_size: int = 100,
    test_batch_size: int = 100,
    data_format: str = "NCHW",
    url: str = MNIST_URL,
    hash_check: str | None = MNIST_SHA256,
    out_dir: str = ".",
) -> tuple[Split, Split]:
    """Load MNIST as ``((train_x, train_y), (test_x, test_y))`` batches.

    Images are float32 in [0, 1], shaped ``(N // bs, bs, 1, H, W)`` (NCHW) or
    ``(N // bs, bs, H, W, 1)``; labels are int32 ``(N // bs, bs)``. A remainder
    that does not fill a batch is dropped with a warning.

    ``mnist.npz`` is looked up in ``out_dir``, the current directory and
    ``$FLOWTORCH_DATA`` (a directory or the file); only when absent is it
    downloaded from ``url`` into ``out_dir``. A sha256 different from
    ``hash_check`` only warns (pass ``None`` to skip the check); a file that
    ``flowtorch make-mnist`` wrote is not checked.
    """
    sizes = []
    for arg, value in (
        ("train_batch_size", train_batch_size),
        ("test_batch_size", test_batch_size),
    ):
        size = operator.index(value)
        if size <= 0:
            raise ValueError(f"load_mnist: {arg} must be positive, got {value}")
        sizes.append(size)

    path = _obtain(url, out_dir)
    log.info("File mnist.npz already exist, path: %s", path)  # OneFlow's words
    arrays, synthetic = _read_npz(path)
    if hash_check and not synthetic:
        actual = _sha256(path)
        if actual != hash_check.lower():
            log.warning("load_mnist: sha256 of %s is %s, expected %s; using the file anyway", path, actual,
                        hash_check)
    train = _batch(arrays["x_train"], arrays["y_train"], sizes[0], data_format, "train")
    test = _batch(arrays["x_test"], arrays["y_test"], sizes[1], data_format, "test")
    return train, test


def _synthetic_split(
    rng: np.random.Generator, templates: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray]:
    labels = rng.integers(0, len(templates), size=n).astype(np.uint8)
    brightness = rng.uniform(0.6, 1.0, size=(n, 1, 1))
    images = templates[labels] * brightness + rng.normal(0.0, 35.0, size=(n, 28, 28))
    # A one-pixel jitter keeps samples of one class from being near copies.
    shifts = rng.integers(-1, 2, size=(n, 2))
    for i, (dy, dx) in enumerate(shifts):
        images[i] = np.roll(images[i], (int(dy), int(dx)), axis=(0, 1))
    return np.clip(np.rint(images), 0, 255).astype(np.uint8), labels


def make_synthetic_mnist(path: str, n_train: int = 1000, n_test: int = 200, seed: int = 0) -> str:
    """Write a small, learnable stand-in for ``mnist.npz`` and return its path.

    ``path`` is the file to write, or an existing directory (then
    ``<path>/mnist.npz``). Each of the ten classes has a fixed random blocky
    28x28 template; samples are that template with random brightness, a
    one-pixel shift and Gaussian noise, stored as uint8 like the real file, so
    a small MLP separates the classes within a few hundred steps. The file
    holds one more array, ``flowtorch_synthetic``, so that ``load_mnist`` does
    not check it against the real file's sha256.
    """
    if os.path.isdir(path):
        path = os.path.join(path, FILENAME)
    rng = np.random.default_rng(seed)
    coarse = rng.random((10, 7, 7)) < 0.35
    templates = np.kron(coarse, np.ones((4, 4))) * 255.0
    x_train, y_train = _synthetic_split(rng, templates, n_train)
    x_test, y_test = _synthetic_split(rng, templates, n_test)

    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, f".{os.path.basename(path)}.tmp-{secrets.token_hex(4)}")
    try:
        with open(tmp, "wb") as f:  # a file object keeps np.savez from renaming
            np.savez(f, x_train=x_train, y_train=y_train, x_test=x_test, y_test=y_test,
                     flowtorch_synthetic=np.array(True))  # SYNTHETIC_KEY
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return path
