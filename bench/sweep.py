#!/usr/bin/env python3
"""sweep.py: runs hfft-bench over a range of sizes and plots the results.

Sizes run from in card (a fraction of the device budget) to several times the
budget, doubling, for 2D and 3D, single and double precision; each size is one
hfft-bench process that appends to one CSV.  The plots are drawn from that CSV
(or from any hfft-bench CSV with --plot-only) and are titled with the device
names the CSV records, so an emulated or CPU-only run cannot pass for GPU data.

  bench/sweep.py --bench build/bench/hfft-bench --budget 16GiB --out sweep-h200
  bench/sweep.py --plot-only bench/sweep-h200/sweep.csv --out bench/sweep-h200

The second line redraws the plots bench/RESULTS.md shows (matplotlib needed
for the plots only).
"""
import argparse
import csv
import math
import os
import subprocess
import sys
import time

UNITS = {"": 1, "B": 1, "KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "TIB": 1 << 40,
         "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "K": 1 << 10, "M": 1 << 20,
         "G": 1 << 30, "T": 1 << 40}

# Drawing order and colours: hfft engines solid, baselines dashed.
ENGINES = ["hfft-gpu", "hfft-hybrid", "hfft-auto", "hfft-cpu", "fftw-estimate", "fftw-measure",
           "mkl", "cufft-incard", "cufft-copy-exec-copy"]
STYLE = {
    "hfft-gpu": ("tab:red", "-", "o"),
    "hfft-hybrid": ("tab:orange", "-", "s"),
    "hfft-auto": ("tab:brown", "-", "D"),
    "hfft-cpu": ("tab:pink", "-", "v"),
    "fftw-estimate": ("tab:gray", "--", "x"),
    "fftw-measure": ("black", "--", "+"),
    "mkl": ("tab:blue", "--", "^"),
    "cufft-incard": ("tab:green", ":", "*"),
    "cufft-copy-exec-copy": ("tab:olive", "--", "P"),
}
# Engines hfft-bench has renamed since: CSVs written before keep the old name.
RENAMED = {"cufft-chunked": "cufft-copy-exec-copy"}


def parse_bytes(text):
    t = text.strip().upper().replace(" ", "")
    num = t.rstrip("KMGTIB")
    unit = t[len(num):]
    if unit not in UNITS or not num:
        raise argparse.ArgumentTypeError(f"not a byte size: {text!r}")
    return int(float(num) * UNITS[unit])


def human(b):
    for unit, f in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= f:
            v = b / f
            return f"{v:.0f} {unit}" if abs(v - round(v)) < 0.05 else f"{v:.1f} {unit}"
    return f"{b:.0f} B"


def shape(rank, exponent):
    """Power-of-two sizes, slowest first, as even as possible, totalling 2**exponent."""
    base, extra = divmod(exponent, rank)
    return [1 << (base + (1 if k < extra else 0)) for k in range(rank)]


def problems(args):
    if args.sizes:
        return args.sizes.split(",")
    out = []
    lo, hi = args.min_factor * args.budget, args.max_factor * args.budget
    for dim in args.dims.split(","):
        rank = int(dim.rstrip("d"))
        for prec in args.precisions.split(","):
            esize = 8 if prec == "f32" else 16
            e_lo = max(rank, math.ceil(math.log2(max(lo, esize) / esize)))
            e_hi = math.floor(math.log2(hi / esize))
            for e in range(e_lo, e_hi + 1):
                n = shape(rank, e)
                out.append(f"{rank}d:{'x'.join(map(str, n))}:{prec}")
    return out


def problem_bytes(text):
    _, dims, prec = (text.split(":") + ["f32"])[:3]
    total = 1
    for d in dims.split("x"):
        total *= int(d)
    return total * (8 if prec == "f32" else 16)


def host_memory():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def run(args):
    os.makedirs(args.out, exist_ok=True)
    csv_path = args.csv or os.path.join(args.out, "sweep.csv")
    log_path = os.path.join(args.out, "sweep.log")
    mem = host_memory()
    todo = problems(args)
    # The arrays hfft-bench holds: input and output, plus the higher-precision
    # reference (twice the array again) with --verify.
    copies = 4 if args.verify else 2
    failures = 0
    with open(log_path, "a") as log:
        for i, prob in enumerate(todo):
            need = copies * problem_bytes(prob)
            if mem and need > args.host_fraction * mem:
                msg = (f"[{i + 1}/{len(todo)}] {prob}: skipped, needs {human(need)} of host "
                       f"memory, {human(mem)} installed")
                print(msg, flush=True)
                log.write(msg + "\n")
                continue
            cmd = [args.bench, "--budget", str(args.budget), "--reps", str(args.reps),
                   "--mode", args.mode, "--csv", csv_path,
                   "--fftw-measure-limit", str(args.fftw_measure_limit)]
            if args.baselines:
                cmd += ["--baselines", args.baselines]
            if args.verify:
                cmd.append("--verify")
            cmd += args.extra + [prob]
            print(f"[{i + 1}/{len(todo)}] {' '.join(cmd)}", flush=True)
            log.write("$ " + " ".join(cmd) + "\n")
            t0 = time.time()
            try:
                p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True, timeout=args.timeout or None)
                out, rc = p.stdout, p.returncode
            except subprocess.TimeoutExpired as e:
                out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
                rc = "timeout"
            log.write(out + f"# exit {rc} after {time.time() - t0:.1f} s\n")
            log.flush()
            if args.echo:
                print(out, end="")
            if rc != 0:
                failures += 1
                print(f"    exit {rc}: see {log_path}", flush=True)
    return csv_path, failures


def load(csv_path):
    rows = {}
    with open(csv_path, newline="") as f:
        for r in csv.DictReader(f):
            r["engine"] = RENAMED.get(r["engine"], r["engine"])
            # A CSV appended over several sweeps: the latest row of each
            # (problem, engine, in-place) wins.
            rows[(r["problem"], r["engine"], r["inplace"])] = r
    return list(rows.values())


def fnum(r, key):
    try:
        v = float(r.get(key) or "nan")
    except ValueError:
        return math.nan
    return v


def devices(rows):
    gpu = sorted({r["device"] for r in rows
                  if r["status"] == "ok" and r["device"] not in ("", "none", "cpu", "-")})
    hosts = sorted({r["host"] for r in rows if r.get("host")})
    host = ", ".join(hosts) if hosts else "unknown host"
    if not gpu:
        return f"CPU only (no GPU), host {host}", False
    emulated = any(d == "emulated" for d in gpu)
    title = " + ".join(gpu) + f", host {host}"
    if emulated:
        title += "\nemulated = hfft's host-memory test double: NOT GPU timings"
    return title, emulated


def grid(rows):
    keys = sorted({(int(r["rank"]), r["precision"]) for r in rows})
    ranks = sorted({k[0] for k in keys})
    precs = sorted({k[1] for k in keys})
    return ranks, precs


def size_axis(ax, budget):
    from matplotlib.ticker import FuncFormatter, LogLocator
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(LogLocator(base=2, numticks=9))
    ax.xaxis.set_minor_locator(LogLocator(base=2, subs=(), numticks=1))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: human(v)))
    for t in ax.get_xticklabels():
        t.set_rotation(30)
        t.set_ha("right")
    ax.set_xlabel("array size (bytes of complex data)")
    if budget:
        ax.axvline(budget, color="tab:purple", lw=1, ls="-.",
                   label=f"device budget {human(budget)}")


def floor_note(rows, bw):
    """What the CSV's bound_fraction measures: hfft-bench's CSVs with a trip_fraction
    column set one trip (and cuFFT copy-execute-copy) against the one-trip bound;
    older ones set every row against the duplex rate."""
    if "trip_fraction" in rows[0]:
        return ("floor: one trip and cufft-copy-exec-copy S / B_h2d + S / B_d2h; streaming, the "
                f"bytes moved each way / B, B the per-direction rate with both directions busy "
                f"({bw}); all measured in each run")
    return ("floor: hfft 2 x S x GPU share / B (two round trips); cufft-copy-exec-copy S / B "
            f"(one round trip).  B: per-direction rate with both directions busy, "
            f"measured in each run ({bw})")


def plot(csv_path, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in load(csv_path) if r["status"] == "ok"]
    if not rows:
        print(f"{csv_path}: no successful rows to plot")
        return []
    title_dev, _ = devices(rows)
    ranks, precs = grid(rows)
    budgets = sorted({int(float(r["device_budget"])) for r in rows
                      if r.get("device_budget") and float(r["device_budget"]) > 0})
    budget = budgets[len(budgets) // 2] if budgets else None
    made = []

    def figure(name, ylabel, key, engines, logy, ylim=None, empty_note=None, ref_line=None,
               footnote=None):
        fig, axes = plt.subplots(len(ranks), len(precs), squeeze=False,
                                 figsize=(6.2 * len(precs) + 2.2, 4.6 * len(ranks)))
        any_data = False
        for i, rank in enumerate(ranks):
            for j, prec in enumerate(precs):
                ax = axes[i][j]
                sub = [r for r in rows if int(r["rank"]) == rank and r["precision"] == prec]
                drawn = 0
                for eng in engines:
                    pts = sorted((int(r["bytes"]), fnum(r, key)) for r in sub
                                 if r["engine"] == eng and not math.isnan(fnum(r, key)))
                    if not pts:
                        continue
                    any_data = True
                    drawn += 1
                    c, ls, m = STYLE.get(eng, ("k", "-", "o"))
                    # Later engines get smaller markers, so equal values stay visible.
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], color=c, ls=ls, marker=m,
                            label=eng, ms=max(3.5, 8 - 1.2 * (drawn - 1)), alpha=0.85)
                if ref_line is not None:
                    ax.axhline(ref_line, color="0.6", lw=0.8)
                if logy:
                    from matplotlib.ticker import NullFormatter
                    ax.set_yscale("log")
                    ax.yaxis.set_minor_formatter(NullFormatter())
                if ylim:
                    ax.set_ylim(*ylim)
                sizes = [int(r["bytes"]) for r in sub]
                if sizes:
                    ax.set_xlim(min(sizes) / 1.25, max(sizes) * 1.25)
                size_axis(ax, budget)
                ax.set_ylabel(ylabel)
                ax.set_title(f"{rank}D complex {prec} ({'single' if prec == 'f32' else 'double'})")
                ax.grid(True, which="both", alpha=0.3)
                if not drawn:
                    ax.text(0.5, 0.5, empty_note or "no data", ha="center", va="center",
                            transform=ax.transAxes, color="0.4", wrap=True)
        # One legend for all panels, outside them, so that no data hides behind it.
        handles = {}
        for ax in axes.flat:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                handles.setdefault(lab, h)
        if handles:
            fig.legend(list(handles.values()), list(handles.keys()), loc="center right",
                       fontsize=9, frameon=False)
        fig.suptitle(f"hfft-bench: {ylabel.split(' (')[0]} against size\n{title_dev}", fontsize=11)
        if footnote:
            fig.text(0.5, 0.005, footnote, ha="center", va="bottom", fontsize=8, color="0.3")
        fig.tight_layout(rect=(0, 0.03 if footnote else 0, 0.84 if handles else 1, 1))
        path = os.path.join(out_dir, name)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        made.append(path)
        return any_data

    figure("time_vs_size.png", "median time (s)", "median_s", ENGINES, True)
    bws = sorted(fnum(r, "bw_duplex_h2d_gbs") for r in rows
                 if not math.isnan(fnum(r, "bw_duplex_h2d_gbs")))
    bw = f"{bws[len(bws) // 2]:.1f} GB/s" if bws else "not measured"
    figure("bound_vs_size.png", "bound fraction (link floor / time)", "bound_fraction",
           ["hfft-gpu", "hfft-hybrid", "hfft-auto", "cufft-copy-exec-copy"], False, ylim=(0, 1.1),
           empty_note="no link bound: needs a real GPU\n(link bandwidth measured in the run)",
           ref_line=1.0,
           footnote=floor_note(rows, bw))
    figure("ratio_vs_size.png", "GPU share chosen (mean over rounds)", "ratio_mean",
           ["hfft-gpu", "hfft-hybrid", "hfft-auto", "hfft-cpu"], False, ylim=(-0.05, 1.05))
    return made


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    default_bench = os.path.join(os.path.dirname(here), "build", "bench", "hfft-bench")
    ap.add_argument("--bench", default=default_bench, help="the hfft-bench program")
    ap.add_argument("--budget", type=parse_bytes, default=parse_bytes("1GiB"),
                    help="device budget passed to hfft-bench (sizes are relative to it)")
    ap.add_argument("--min-factor", type=float, default=0.125,
                    help="smallest array, as a multiple of the budget")
    ap.add_argument("--max-factor", type=float, default=4.0,
                    help="largest array, as a multiple of the budget")
    ap.add_argument("--dims", default="2d,3d", help="comma list of 1d, 2d, 3d")
    ap.add_argument("--precisions", default="f32,f64", help="comma list of f32, f64")
    ap.add_argument("--sizes", help="explicit comma list of problem strings instead")
    ap.add_argument("--mode", default="all,auto",
                    help="hfft-bench --mode (auto: the placement and share hfft picks itself)")
    ap.add_argument("--baselines", help="hfft-bench --baselines (default: all available)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--verify", action="store_true", help="pass --verify (4 arrays of memory)")
    ap.add_argument("--fftw-measure-limit", type=float, default=60.0)
    ap.add_argument("--timeout", type=float, default=0, help="seconds per size; 0: none")
    ap.add_argument("--host-fraction", type=float, default=0.8,
                    help="skip sizes whose arrays need more than this share of host memory")
    ap.add_argument("--out", default="sweep", help="folder for the CSV, the log and the PNGs")
    ap.add_argument("--csv", help="CSV to append to (default OUT/sweep.csv)")
    ap.add_argument("--plot-only", metavar="CSV", help="only draw the plots from this CSV")
    ap.add_argument("--dry-run", action="store_true", help="print the problems and stop")
    ap.add_argument("--echo", action="store_true", help="print hfft-bench's tables as they come")
    ap.add_argument("extra", nargs="*", help="more hfft-bench options, after --")
    args = ap.parse_args()

    if args.plot_only:
        os.makedirs(args.out, exist_ok=True)
        for p in plot(args.plot_only, args.out):
            print("wrote", p)
        return 0
    if args.dry_run:
        for p in problems(args):
            print(p, human(problem_bytes(p)))
        return 0
    if not os.access(args.bench, os.X_OK):
        sys.exit(f"sweep.py: {args.bench} is not an executable (use --bench)")
    csv_path, failures = run(args)
    if os.path.exists(csv_path):
        for p in plot(csv_path, args.out):
            print("wrote", p)
    else:
        print("sweep.py: no CSV was written")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
