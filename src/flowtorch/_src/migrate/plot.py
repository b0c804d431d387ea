"""Charts of a run recorded by ``flow.watch.to_tensorboard``: PNGs drawn with matplotlib's Agg canvas.

A run is a TensorBoard log directory, read back with tensorboard's ``EventAccumulator``. Its tags fall in
three kinds: a *stats group* ``T`` (the scalars ``T/norm``, ``T/mean``, ``T/min``, ``T/max``, ``T/zeros`` and,
usually, the histogram ``T``) gets one six-panel chart; the loss (``loss_tag``: a plain scalar, or a stats
group whose mean is taken) gets a curve; every other plain scalar gets a curve too. ``index.html`` shows them all.
Steps and counts are whole numbers, so their axes get integer ticks only; the mean's "± std" band is clipped to
the recorded min and max (a ReLU's output never shows below 0).
"""

from __future__ import annotations

import fnmatch
import html
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from flowtorch._src.io.safe_paths import stat_kind
from flowtorch._src.migrate.viz import STATS, require

PERCENTILES = (0, 7, 16, 31, 50, 69, 84, 93, 100)
"""The distribution panel's bands, TensorBoard's own: min–max, ±1.5σ, ±1σ, ±0.5σ and the median."""

_PURPOSE = "flowtorch plot"


@dataclass
class Series:
    steps: np.ndarray
    values: np.ndarray


@dataclass
class Histograms:
    """A tag's histograms over steps, reduced to percentiles (rows: steps) and the last step's buckets."""
    steps: np.ndarray
    percentiles: np.ndarray
    std: np.ndarray
    last_edges: np.ndarray
    last_counts: np.ndarray


@dataclass
class Run:
    scalars: dict[str, Series]
    histograms: dict[str, Histograms]

    def groups(self) -> list[str]:
        """The stats groups: tags ``T`` with every ``T/<stat>`` scalar."""
        prefixes = {tag.rpartition("/")[0] for tag in self.scalars if "/" in tag}
        return sorted(p for p in prefixes if all(f"{p}/{s}" in self.scalars for s in STATS))

    def plain_scalars(self) -> list[str]:
        grouped = {f"{g}/{s}" for g in self.groups() for s in STATS}
        return sorted(tag for tag in self.scalars if tag not in grouped)


@dataclass
class PlotResult:
    written: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def event_files(logdir: Path) -> list[Path]:
    return sorted(p for p in logdir.iterdir() if p.is_file() and p.name.startswith("events.out.tfevents"))


def load_run(logdir: str | os.PathLike[str]) -> Run:
    """Every scalar and histogram of the event files directly in ``logdir`` (not its subdirectories)."""
    path = Path(logdir)
    if not path.is_dir():
        raise FileNotFoundError(f"RUN {str(path)!r} is not a directory (expected a TensorBoard log directory)")
    if not event_files(path):
        runs = sorted({str(p.parent.relative_to(path)) for p in path.rglob("events.out.tfevents*")})
        hint = f"; its subdirectories with runs: {', '.join(runs)} (pass one of them)" if runs else ""
        raise FileNotFoundError(f"RUN {str(path)!r} holds no TensorBoard event files (events.out.tfevents.*){hint}")
    ea = require("tensorboard.backend.event_processing.event_accumulator", _PURPOSE)
    acc = ea.EventAccumulator(str(path), size_guidance={ea.SCALARS: 0, ea.HISTOGRAMS: 500})
    acc.Reload()
    tags = acc.Tags()
    scalars = {}
    for tag in tags.get(ea.SCALARS, []):
        events = sorted(acc.Scalars(tag), key=lambda e: e.step)
        scalars[tag] = Series(np.array([e.step for e in events]), np.array([e.value for e in events], np.float64))
    histograms = {tag: _reduce(sorted(acc.Histograms(tag), key=lambda e: e.step))
                  for tag in tags.get(ea.HISTOGRAMS, [])}
    return Run(scalars, histograms)


def _reduce(events: list[Any]) -> Histograms:
    rows, stds = [], []
    for e in events:
        h = e.histogram_value
        rows.append(_percentiles(h))
        mean = h.sum / h.num if h.num else 0.0
        stds.append(np.sqrt(max(h.sum_squares / h.num - mean * mean, 0.0)) if h.num else 0.0)
    edges, counts = _rebinned(events[-1].histogram_value)
    return Histograms(np.array([e.step for e in events]), np.array(rows), np.array(stds), edges, counts)


def _rebinned(h: Any, bins: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """A bucketed histogram on ``bins`` equal-width bins over [min, max], each bucket's count going to the
    bin of its middle (TensorBoard's buckets grow exponentially and the one at 0 is 1e-12 wide)."""
    lo, hi = float(h.min), float(h.max)
    counts = np.asarray(h.bucket, np.float64)
    if not hi > lo:  # one value everywhere
        return np.array([lo - 0.5, lo + 0.5]), np.array([counts.sum()])
    limits = np.clip(np.asarray(h.bucket_limit, np.float64), lo, hi)
    lowers = np.concatenate([[lo], limits[:-1]])
    rebinned, edges = np.histogram((lowers + limits) / 2, bins=np.linspace(lo, hi, bins + 1), weights=counts)
    return edges, rebinned


def _percentiles(h: Any) -> list[float]:
    """Percentiles of a bucketed histogram, interpolated linearly inside a bucket and clamped to [min, max]."""
    counts = np.asarray(h.bucket, np.float64)
    limits = np.asarray(h.bucket_limit, np.float64)
    if not counts.size or counts.sum() <= 0:
        return [float(h.min)] * len(PERCENTILES)
    cum = np.cumsum(counts)
    lowers = np.concatenate([[h.min], limits[:-1]])
    out = []
    for p in PERCENTILES:
        target = p / 100 * cum[-1]
        i = min(int(np.searchsorted(cum, target)), len(cum) - 1)
        before = cum[i - 1] if i else 0.0
        frac = (target - before) / counts[i] if counts[i] else 0.0
        out.append(float(np.clip(lowers[i] + frac * (limits[i] - lowers[i]), h.min, h.max)))
    return out


def slug(tag: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", tag).strip("_.") or "tag"


class _Names:
    """File names derived from tags, made unique (``a/b`` and ``a_b`` both slug to ``a_b``)."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def __call__(self, prefix: str, tag: str) -> str:
        base = f"{prefix}{slug(tag)}"
        name, n = f"{base}.png", 2
        while name in self.used:
            name, n = f"{base}-{n}.png", n + 1
        self.used.add(name)
        return name


def _smoothed(values: np.ndarray, weight: float = 0.6) -> np.ndarray:
    """TensorBoard's debiased exponential moving average."""
    out, last = np.empty_like(values), 0.0
    for i, v in enumerate(values):
        last = last * weight + (1 - weight) * v
        out[i] = last / (1 - weight ** (i + 1))
    return out


def _figure(width: float, height: float) -> Any:
    figure_mod = require("matplotlib.figure", _PURPOSE)
    require("matplotlib.backends.backend_agg", _PURPOSE)  # Figure.savefig draws on the Agg canvas
    return figure_mod.Figure(figsize=(width, height), layout="constrained")


def _whole_numbers(axis: Any) -> None:
    """Ticks at whole numbers only on ``axis`` (steps, counts): never 0.5 steps."""
    axis.set_major_locator(require("matplotlib.ticker", _PURPOSE).MaxNLocator(integer=True))


def std_band(mean: Series, std: Histograms, low: Series, high: Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(steps, lower, upper)``: mean ± std at the steps that have a histogram and a mean, clipped to the
    recorded min and max there (mean - std of a ReLU's output is often below its min, 0)."""
    at = {name: dict(zip(series.steps.tolist(), series.values)) for name, series in
          (("mean", mean), ("min", low), ("max", high))}
    keep = [i for i, step in enumerate(std.steps.tolist()) if all(step in values for values in at.values())]
    steps = std.steps[keep]
    centre, spread = (np.array([at["mean"][int(t)] for t in steps], np.float64), std.std[keep])
    lower = np.maximum(centre - spread, [at["min"][int(t)] for t in steps])
    upper = np.minimum(centre + spread, [at["max"][int(t)] for t in steps])
    return steps, lower, upper


def draw_curve(series: Series, title: str, ylabel: str, path: Path, dpi: int,
               band: tuple[np.ndarray, np.ndarray] | None = None) -> Any:
    """A curve over steps: the values, a smoothed line when there are many, and an optional shaded band.
    Returns the saved figure."""
    fig = _figure(8, 4.5)
    ax = fig.add_subplot()
    if band is not None:
        ax.fill_between(series.steps, band[0], band[1], color="tab:blue", alpha=0.15, label="min–max")
    many = len(series.values) >= 10
    ax.plot(series.steps, series.values, color="tab:blue", alpha=0.35 if many else 1.0, lw=1,
            marker=None if many else "o", label=ylabel)
    if many:
        ax.plot(series.steps, _smoothed(series.values), color="tab:blue", lw=2, label=f"{ylabel} (smoothed)")
    ax.set(title=title, xlabel="step", ylabel=ylabel)
    _whole_numbers(ax.xaxis)
    ax.grid(alpha=0.3)
    ax.legend(loc="best")
    fig.savefig(path, dpi=dpi)
    return fig


def draw_stats(tag: str, run: Run, path: Path, dpi: int) -> Any:
    """Six panels of one watched tag over steps: mean (± std, clipped to min..max), L2 norm, min & max,
    fraction of zeros, the distribution (percentile bands from the histograms) and the last step's histogram.
    Returns the saved figure."""
    s = {stat: run.scalars[f"{tag}/{stat}"] for stat in STATS}
    hist = run.histograms.get(tag)
    fig = _figure(13, 7.5)
    axes = fig.subplots(2, 3)
    fig.suptitle(f"{tag}: statistics over steps", fontsize=14)
    ax = axes[0, 0]
    ax.plot(s["mean"].steps, s["mean"].values, color="tab:blue", label="mean")
    if hist is not None:  # the histograms may be a sample of the steps (EventAccumulator keeps 500)
        steps, lower, upper = std_band(s["mean"], hist, s["min"], s["max"])
        ax.fill_between(steps, lower, upper, color="tab:blue", alpha=0.2, label="± std (within min..max)")
        ax.legend(loc="best")
    ax.set_title("mean")
    axes[0, 1].plot(s["norm"].steps, s["norm"].values, color="tab:purple")
    axes[0, 1].set_title("L2 norm")
    axes[0, 2].plot(s["max"].steps, s["max"].values, color="tab:red", label="max")
    axes[0, 2].plot(s["min"].steps, s["min"].values, color="tab:green", label="min")
    axes[0, 2].set_title("min and max")
    axes[0, 2].legend(loc="best")
    axes[1, 0].plot(s["zeros"].steps, s["zeros"].values, color="tab:gray")
    axes[1, 0].set_ylim(-0.02, 1.02)
    axes[1, 0].set_title("fraction of zeros")
    _distribution(axes[1, 1], hist)
    _last_histogram(axes[1, 2], hist)
    for ax in axes.flat:
        ax.grid(alpha=0.3)
    for ax in (*axes[0], axes[1, 0], axes[1, 1]):
        ax.set_xlabel("step")
        _whole_numbers(ax.xaxis)
    fig.savefig(path, dpi=dpi)
    return fig


def _distribution(ax: Any, hist: Histograms | None) -> None:
    ax.set_title("distribution (percentiles)")
    if hist is None:
        ax.text(0.5, 0.5, "no histogram recorded", ha="center", va="center", transform=ax.transAxes)
        return
    p, n = hist.percentiles, len(PERCENTILES)
    for lo in range(n // 2):
        ax.fill_between(hist.steps, p[:, lo], p[:, n - 1 - lo], color="tab:orange", alpha=0.18, lw=0)
    ax.plot(hist.steps, p[:, n // 2], color="tab:orange", lw=1.5, label="median")
    ax.legend(loc="best")


def _last_histogram(ax: Any, hist: Histograms | None) -> None:
    if hist is None:
        ax.set_title("histogram")
        ax.text(0.5, 0.5, "no histogram recorded", ha="center", va="center", transform=ax.transAxes)
        return
    ax.set_title(f"histogram at step {int(hist.steps[-1])}")
    ax.stairs(hist.last_counts, hist.last_edges, fill=True, color="tab:orange", alpha=0.7)
    ax.set_xlabel("value")
    ax.set_ylabel("count")
    _whole_numbers(ax.yaxis)


def _index(outdir: Path, charts: list[tuple[str, Path]]) -> Path:
    items = "\n".join(f'<h2>{html.escape(title)}</h2>\n<img src="{html.escape(p.name)}" alt="{html.escape(title)}">'
                      for title, p in charts)
    path = outdir / "index.html"
    path.write_text(f"<!doctype html>\n<meta charset=\"utf-8\">\n<title>flowtorch plot</title>\n{items}\n",
                    encoding="utf-8")
    return path


def plot_run(logdir: str | os.PathLike[str], outdir: str | os.PathLike[str], loss_tag: str = "loss",
             patterns: list[str] | None = None, dpi: int = 100, loss_required: bool = False) -> PlotResult:
    """Draw a run's charts into ``outdir`` (created); only tags matching one of ``patterns`` (fnmatch) when
    given. Returns the written PNGs and ``index.html``, and notes on what was not drawn. ``NotADirectoryError``
    when ``outdir`` exists and is not a folder."""
    out = Path(outdir)
    if os.path.lexists(out) and not out.is_dir():
        raise NotADirectoryError(f"OUTDIR {str(out)!r} is {stat_kind(str(out))}, not a folder")
    run = load_run(logdir)
    out.mkdir(parents=True, exist_ok=True)
    result, names, charts = PlotResult(), _Names(), []

    def wanted(tag: str) -> bool:
        return not patterns or any(fnmatch.fnmatchcase(tag, p) for p in patterns)

    if loss_tag in run.scalars:
        path = out / names("", "loss")
        title = "loss" if loss_tag == "loss" else f"loss ({loss_tag})"
        draw_curve(run.scalars[loss_tag], title, "loss", path, dpi)
        charts.append((title, path))
    elif loss_tag in run.groups():
        s = {stat: run.scalars[f"{loss_tag}/{stat}"] for stat in ("mean", "min", "max")}
        path = out / names("", "loss")
        title = f"loss ({loss_tag}: mean over its elements)"
        draw_curve(s["mean"], title, "mean loss", path, dpi, band=(s["min"].values, s["max"].values))
        charts.append((title, path))
    else:
        message = (f"no loss series {loss_tag!r} in the run (log one with to_tensorboard(writer, {loss_tag!r}), "
                   "or name it with --loss)")
        if loss_required:
            raise KeyError(message)
        result.notes.append(message)
    for tag in run.plain_scalars():
        if tag != loss_tag and wanted(tag):
            path = out / names("scalar-", tag)
            draw_curve(run.scalars[tag], tag, tag.rpartition("/")[2], path, dpi)
            charts.append((tag, path))
    for tag in run.groups():
        if wanted(tag):
            path = out / names("stats-", tag)
            draw_stats(tag, run, path, dpi)
            charts.append((tag, path))
    if len(charts) == 0:
        result.notes.append("nothing to plot: the run has no scalar series" + (" matching --tag" if patterns else ""))
        return result
    result.written = [p for _, p in charts]
    result.written.append(_index(out, charts))
    return result
