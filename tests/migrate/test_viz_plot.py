"""flowtorch plot: a run recorded by flow.watch.to_tensorboard drawn as PNG charts (issue 13)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import flowtorch as flow
import flowtorch.typing as tp
from flowtorch._src.migrate import plot, plot_cli

pytest.importorskip("tensorboard")
mpimg = pytest.importorskip("matplotlib.image")

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _record_run(logdir: Path, steps: int = 6) -> None:
    """A small train job: its loss (the returned array's mean), a hidden activation and its gradient."""
    tb = flow.watch.to_tensorboard

    @flow.global_function(type="train")
    def job(x: tp.Numpy.Placeholder((8, 4))) -> tp.Numpy:
        h = flow.layers.dense(x, 6, activation=flow.nn.relu, name="hidden",
                              kernel_initializer=flow.random_normal_initializer(seed=3))
        flow.watch(h, tb(logdir, "hidden/out"))
        flow.watch_diff(h, tb(logdir, "hidden/grad"))
        loss = flow.math.reduce_mean(flow.math.square(h - 1.0), axis=1)
        flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.05]), momentum=0).minimize(loss)
        return loss

    log_loss = tb(logdir, "loss")
    rng = np.random.default_rng(0)
    for _ in range(steps):
        log_loss(job(rng.normal(size=(8, 4)).astype(np.float32)).mean())
    log_loss.close()


def _check_png(path: Path) -> None:
    assert path.read_bytes()[:8] == PNG_MAGIC
    image = mpimg.imread(path)
    assert image.ndim == 3 and image.shape[0] >= 300 and image.shape[1] >= 600, image.shape
    assert float(image[..., :3].std()) > 0.05  # something is drawn on the white background
    assert path.stat().st_size > 10_000


def test_plot_writes_a_png_per_chart_and_an_index(tmp_path: Path, run_py) -> None:
    _record_run(tmp_path / "run")
    proc = run_py("-m", "flowtorch", "plot", str(tmp_path / "run"), str(tmp_path / "charts"))
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "charts"
    names = ["loss.png", "stats-hidden_grad.png", "stats-hidden_out.png", "index.html"]
    assert proc.stdout.split() == [str(out / n) for n in names]
    for name in names[:-1]:
        _check_png(out / name)
    index = (out / "index.html").read_text()
    assert all(f'src="{n}"' in index for n in names[:-1])


def test_the_run_reads_back_as_written(tmp_path: Path) -> None:
    handler = flow.watch.to_tensorboard(tmp_path, "x")
    rng = np.random.default_rng(1)
    arrays = [rng.uniform(1.0, 2.0, size=2000) for _ in range(3)]
    for a in arrays:
        handler(a)
    handler.close()
    run = plot.load_run(tmp_path)
    assert run.groups() == ["x"] and run.plain_scalars() == []
    np.testing.assert_array_equal(run.scalars["x/max"].steps, [0, 1, 2])
    np.testing.assert_allclose(run.scalars["x/max"].values, [a.max() for a in arrays], rtol=1e-6)
    hist = run.histograms["x"]
    # Percentiles from TensorBoard's buckets (about 10 % wide) against numpy's on the raw values.
    np.testing.assert_allclose(hist.percentiles, [np.percentile(a, plot.PERCENTILES) for a in arrays], atol=0.03)
    np.testing.assert_allclose(hist.std, [a.std() for a in arrays], rtol=1e-4)
    assert hist.last_counts.sum() == 2000 and hist.last_edges[[0, -1]] == pytest.approx([1.0, 2.0], abs=1e-3)


def test_loss_from_a_watched_tag_and_tag_filters(tmp_path: Path) -> None:
    handler = flow.watch.to_tensorboard(tmp_path / "run", "per_sample_loss")
    other, lr = flow.watch.to_tensorboard(tmp_path / "run", "a/b"), flow.watch.to_tensorboard(tmp_path / "run", "lr")
    for i in range(4):
        handler(np.array([1.0, 2.0, 3.0]) / (i + 1))
        other(np.arange(3.0))
        lr(0.1)
    handler.close()
    result = plot.plot_run(tmp_path / "run", tmp_path / "out", loss_tag="per_sample_loss", patterns=["a/*"])
    assert [p.name for p in result.written] == ["loss.png", "stats-a_b.png", "index.html"] and not result.notes
    for p in result.written[:-1]:
        _check_png(p)


def test_cli_errors_are_clear(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    assert plot_cli.main([str(tmp_path / "missing"), str(tmp_path / "out")]) == 2
    assert "is not a directory" in capsys.readouterr().err
    handler = flow.watch.to_tensorboard(tmp_path / "runs" / "first", "loss")
    handler(1.0)
    handler.close()
    assert plot_cli.main([str(tmp_path / "runs"), str(tmp_path / "out")]) == 2
    assert "subdirectories with runs: first (pass one of them)" in capsys.readouterr().err
    assert plot_cli.main([str(tmp_path / "runs" / "first"), str(tmp_path / "out"), "--loss", "nope"]) == 2
    assert "no loss series 'nope'" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    assert plot_cli.main([str(tmp_path / "runs" / "first"), str(tmp_path / "out")]) == 1
    assert 'pip install "flowtorch-oneflow[viz]"' in capsys.readouterr().err


def test_cli_refuses_an_outdir_that_is_a_file_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    handler = flow.watch.to_tensorboard(tmp_path / "run", "loss")
    handler(1.0)
    handler.close()
    out = tmp_path / "charts"
    out.write_text("mine")
    assert plot_cli.main([str(tmp_path / "run"), str(out)]) == 2
    assert capsys.readouterr().err == f"flowtorch plot: OUTDIR {str(out)!r} is a regular file, not a folder\n"
    assert out.read_text() == "mine"


def _relu_run() -> plot.Run:
    """Three steps of a watched ReLU output: min 0, a std larger than the mean at steps 0 and 1."""
    steps = np.arange(3)
    series = {"mean": [0.1, 0.2, 0.3], "norm": [1.0, 2.0, 3.0], "min": [0.0, 0.0, 0.05], "max": [1.0, 0.25, 2.0],
              "zeros": [0.5, 0.4, 0.3]}
    scalars = {f"relu/{k}": plot.Series(steps, np.array(v)) for k, v in series.items()}
    hist = plot.Histograms(steps, np.zeros((3, len(plot.PERCENTILES))), np.array([0.5, 0.5, 0.1]),
                           last_edges=np.array([0.0, 0.5, 1.0]), last_counts=np.array([3.0, 1.0]))
    return plot.Run(scalars, {"relu": hist})


def test_the_std_band_is_clipped_to_the_recorded_min_and_max(tmp_path: Path) -> None:
    run = _relu_run()
    steps, lower, upper = plot.std_band(run.scalars["relu/mean"], run.histograms["relu"], run.scalars["relu/min"],
                                        run.scalars["relu/max"])
    np.testing.assert_array_equal(steps, [0, 1, 2])
    np.testing.assert_allclose(lower, [0.0, 0.0, 0.2])  # mean - std = -0.4, -0.3, 0.2; min 0, 0, 0.05
    np.testing.assert_allclose(upper, [0.6, 0.25, 0.4])  # mean + std = 0.6, 0.7, 0.4; max 1, 0.25, 2
    fig = plot.draw_stats("relu", run, tmp_path / "stats.png", dpi=40)
    [band] = fig.axes[0].collections  # the mean panel's shaded band, as drawn
    ys = band.get_paths()[0].vertices[:, 1]
    assert ys.min() == 0.0 and ys.max() == pytest.approx(0.6)


def test_steps_and_counts_get_whole_number_ticks(tmp_path: Path) -> None:
    fig = plot.draw_stats("relu", _relu_run(), tmp_path / "stats.png", dpi=40)
    *over_steps, last_histogram = fig.axes
    assert len(over_steps) == 5
    for ax in over_steps:  # 3 steps: matplotlib alone would tick 0, 0.25, 0.5, …
        ticks = [t for t in ax.get_xticks() if 0 <= t <= 2]
        assert ticks and all(t == int(t) for t in ticks), ticks
    counts = last_histogram.get_yticks()
    assert all(t == int(t) for t in counts) and max(counts) >= 3, counts
    curve = plot.draw_curve(plot.Series(np.arange(3), np.array([3.0, 2.0, 1.0])), "loss", "loss",
                            tmp_path / "loss.png", dpi=40)
    assert all(t == int(t) for t in curve.axes[0].get_xticks())
