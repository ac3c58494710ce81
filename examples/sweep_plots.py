"""Run a design sweep on Ray and plot it: cost against α and throughput against energy.

    python examples/sweep_plots.py                       # the trend matrix: 100 designs × 2 traces
    python examples/sweep_plots.py --small --out /tmp/p  # one trace, six designs
    python examples/sweep_plots.py --address ray://head:10001   # on a cluster

Writes cost-vs-alpha.png and throughput-vs-energy.png (1200 × 800 pixels) and the sweep's
Parquet dataset into --out (default: tierlab-sweep-plots in the system's temporary
directory, never the current one). A sweep interrupted with Ctrl-C resumes when run again
with the same --out.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import tierlab  # noqa: E402
from tierlab.palette import FAMILIES, design_colour  # noqa: E402
from tierlab.sweep import load  # noqa: E402

HERE = Path(__file__).resolve().parent
ALPHAS = [1, 10, 100, 1000, 10000, 100000]
SIZE_IN, DPI = (12, 8), 100
MARKERS = ["o", "s", "^", "D"]
LINES = ["-", "--", ":", "-."]
SMALL = [
    {"mode": ["ssd-only", "hdd-only"]},
    {"mode": ["tiering", "caching"], "ssd_fraction": 0.25, "pt": 2, "extent_bytes": [262144, 1048576], "mcml": 4},
]


def cost_vs_alpha(df, path: Path) -> None:
    """Total cost at each α for the baselines and each workload's three cheapest designs at α = 1000."""
    workloads = list(dict.fromkeys(df["workload"]))
    fig, axes = plt.subplots(1, len(workloads), figsize=SIZE_IN, dpi=DPI, squeeze=False)
    for ax, w in zip(axes[0], workloads):
        d = df[(df["workload"] == w) & df["error"].isna()]
        picked = d[d["mode"].isin(["ssd-only", "hdd-only"])]
        cheapest = d[~d.index.isin(picked.index)].nsmallest(3, "cost_usd_alpha_1000")
        shown: dict[str, int] = {}
        for _, r in pd.concat([picked, cheapest]).iterrows():
            # A family's colour (the reports' palette); its designs told apart by marker and line.
            k = shown[r["mode"]] = shown.get(r["mode"], -1) + 1
            ax.plot(
                ALPHAS,
                [r[f"cost_usd_alpha_{a}"] for a in ALPHAS],
                color=design_colour(r["mode"]),
                marker=MARKERS[k % len(MARKERS)],
                linestyle=LINES[k % len(LINES)],
                label=r["config"],
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("α (runs of the trace)")
        ax.set_ylabel("total cost (USD)")
        ax.set_title(w)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Cost against α: purchase, then energy, power and wear as the workload repeats")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def throughput_vs_energy(df, path: Path) -> None:
    """Each design's closed-loop throughput against its energy, by mode."""
    workloads = list(dict.fromkeys(df["workload"]))
    fig, axes = plt.subplots(1, len(workloads), figsize=SIZE_IN, dpi=DPI, squeeze=False)
    for ax, w in zip(axes[0], workloads):
        d = df[(df["workload"] == w) & df["error"].isna()]
        for mode, g in sorted(d.groupby("mode"), key=lambda mg: FAMILIES.index(mg[0]) if mg[0] in FAMILIES else len(FAMILIES)):
            ax.scatter(g["energy_j"], g["throughput_iops"], label=mode, color=design_colour(mode), s=18)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("energy of one replay (J)")
        ax.set_ylabel("throughput (IOPS)")
        ax.set_title(w)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Throughput against energy, one point per design")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sweep", default=str(HERE / "trends.toml"), help="the sweep file (default: the trend matrix)")
    p.add_argument("--small", action="store_true", help="one trace and six designs, for a quick look")
    p.add_argument(
        "--out",
        default=str(Path(tempfile.gettempdir()) / "tierlab-sweep-plots"),
        help="directory for the PNGs and the dataset (default: %(default)s)",
    )
    p.add_argument("--address", help="a Ray cluster (default $RAY_ADDRESS, else local)")
    p.add_argument("--workers", type=int, help="CPUs of the local Ray")
    a = p.parse_args()
    spec = load(a.sweep)
    workloads, designs = spec["workloads"], spec["designs"]
    if a.small:
        workloads, designs = workloads[:1], SMALL
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        df = tierlab.sweep(workloads, designs, spec.get("options"), out=out / ("small.parquet" if a.small else "sweep.parquet"), address=a.address, workers=a.workers, base=spec["base"])
    except tierlab.SweepInterrupted as e:
        print(e, file=sys.stderr)  # the rows saved so far; the same command resumes
        sys.exit(130)
    cost_vs_alpha(df, out / "cost-vs-alpha.png")
    throughput_vs_energy(df, out / "throughput-vs-energy.png")
    print(f"{len(df)} runs; wrote {out / 'cost-vs-alpha.png'} and {out / 'throughput-vs-energy.png'}")


if __name__ == "__main__":
    main()
