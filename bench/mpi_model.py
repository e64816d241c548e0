#!/usr/bin/env python3
"""mpi_model.py: the time of a distributed hfft_mpi transform on 16 to 1024 nodes,
modelled from figures measured on one node (the link, host memory, one round of the
node engine) and an assumed network; prints markdown tables for bench/RESULTS.md.

The schedule modelled is hfft_mpi's (src/mpi): each rank (one card each) transforms its
rows in one streaming round, the first all-to-all sends every group of rows as soon as it
is done (pipelined over --groups groups), the columns are transformed in one round, and
the second all-to-all brings them back, pipelined the same way.  Per all-to-all, each rank
keeps 1/P of its data; of the rest, what goes to ranks of its own node is copied through
host memory, what leaves the node crosses the network.  A phase of compute time C and
exchange time E takes max(C, E) + min(C, E) / groups (the first group's compute and the
last group's exchange are not overlapped).

Network assumed by default: 4 x 200 Gb/s InfiniBand NDR per node (100 GB/s line rate,
--net), 80% of it reached by a large all-to-all (--net-efficiency), 2 us per message
(--latency-us), full bisection (a non-blocking fat tree).  Everything else defaults to the
2 x H200 node of DESIGN.md: 50 GB/s per card each way with both directions busy, 55 GB/s
one way, 140 GB/s host copies, 900 GB/s NVLink (used only by the device-resident
column, a model of what an exchange between cards without host memory would give).

Example (the 2 x H200 node's figures, measured by hfft-bench and hfft-mpi-bench):
  python3 bench/mpi_model.py --problem 2d:1048576x1048576:f32 --gpus-per-node 2 \\
      --pcie-duplex 38 --pcie-h2d 55 --pcie-d2h 55 --host-copy 140 --per-node 256GiB
"""
import argparse
import math
import re
import sys

GB = 1e9


def parse_bytes(text):
    m = re.fullmatch(r"([0-9.]+)\s*([KMGT]i?B|B)?", text.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"size '{text}': e.g. 256GiB, 1.5TB, 4096")
    units = {None: 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
             "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}
    return float(m.group(1)) * units[m.group(2)]


def parse_problem(text):
    m = re.fullmatch(r"([23])d:(\d+(?:x\d+)+)(?::(f32|f64))?", text)
    if not m or len(m.group(2).split("x")) != int(m.group(1)):
        raise argparse.ArgumentTypeError(f"problem '{text}': e.g. 2d:1048576x1048576:f32")
    n = [int(v) for v in m.group(2).split("x")]
    esize = 8 if (m.group(3) or "f32") == "f32" else 16
    return text, n, esize


def model(a, n_elems, esize, nodes):
    """Seconds of one transform of n_elems complex elements on `nodes` nodes, and parts."""
    g = a.gpus_per_node
    ranks = nodes * g
    s = n_elems * esize
    s_node, s_rank = s / nodes, s / ranks
    # one streaming round of the node engine over the rank's share (both directions at once)
    rate = a.round_rate * GB / g if a.round_rate else a.pcie_duplex * GB
    compute = s_rank / rate
    # one all-to-all: off-node bytes over the network, on-node ones through host memory
    net = s_node * (nodes - 1) / nodes / (a.net * GB * a.net_efficiency)
    messages = a.groups * (ranks - 1) * a.latency_us * 1e-6
    intra = s_node * (g - 1) / (g * nodes) / (a.host_copy * GB)
    exchange = max(net + messages, intra)
    phase = max(compute, exchange) + min(compute, exchange) / a.groups
    total = 2 * phase
    # device-resident: the slab copied in once and out once (one way each, pipelined with
    # the exchanges like the rounds are), the exchanges card to card (NVLink on the node)
    dev_x = max(net + messages, s_node * (g - 1) / (g * nodes) / (a.nvlink * GB))
    trip_in, trip_out = s_rank / (a.pcie_h2d * GB), s_rank / (a.pcie_d2h * GB)
    device = sum(max(t, dev_x) + min(t, dev_x) / a.groups for t in (trip_in, trip_out))
    return dict(nodes=nodes, ranks=ranks, s_node=s_node, compute=2 * compute,
                exchange=2 * exchange, total=total, exposed=total - 2 * compute,
                device=device)


def table(title, rows, flops_of, weak):
    print(f"\n### {title}\n")
    print("| nodes | ranks | data per node | host memory per node | rounds (s) | all-to-alls (s) "
          "| total (s) | all-to-all share | exposed | TFLOPS | efficiency | device-resident (s) |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    base = None
    for r, n_elems in rows:
        # strong scaling: node-seconds of the first row over this row's; weak: time
        cost = r["total"] if weak else r["total"] * r["nodes"]
        base = base or cost
        print(f"| {r['nodes']} | {r['ranks']} | {r['s_node'] / 2**30:.1f} GiB "
              f"| {2 * r['s_node'] / 2**30:.1f} GiB | {r['compute']:.3f} | {r['exchange']:.3f} "
              f"| {r['total']:.3f} | {100 * r['exchange'] / r['total']:.0f}% "
              f"| {100 * r['exposed'] / r['total']:.0f}% "
              f"| {flops_of(n_elems) / r['total'] / 1e12:.1f} | {100 * base / cost:.0f}% "
              f"| {r['device']:.3f} |")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--problem", type=parse_problem, default=parse_problem("2d:1048576x1048576:f32"),
                   help="strong scaling: this transform on every node count (default "
                        "2d:1048576x1048576:f32, 8 TiB)")
    p.add_argument("--per-node", type=parse_bytes, default=None,
                   help="weak scaling too: this many bytes of the array per node")
    p.add_argument("--nodes", default="16,32,64,128,256,512,1024")
    p.add_argument("--gpus-per-node", type=int, default=2, help="ranks per node, one card each")
    p.add_argument("--pcie-duplex", type=float, default=50.0,
                   help="GB/s per card each way with both directions busy (default 50)")
    p.add_argument("--pcie-h2d", type=float, default=55.0, help="GB/s per card, host to device")
    p.add_argument("--pcie-d2h", type=float, default=55.0, help="GB/s per card, device to host")
    p.add_argument("--round-rate", type=float, default=0.0,
                   help="measured GB/s of one round of the node engine over a node's part "
                        "(overrides --pcie-duplex for the rounds)")
    p.add_argument("--host-copy", type=float, default=140.0,
                   help="GB/s of host memory copies on a node (the on-node exchange)")
    p.add_argument("--nvlink", type=float, default=900.0,
                   help="GB/s between cards of a node (device-resident column only)")
    p.add_argument("--net", type=float, default=100.0,
                   help="GB/s per node of network (default 4 x 200 Gb/s NDR = 100)")
    p.add_argument("--net-efficiency", type=float, default=0.8,
                   help="fraction of --net a large all-to-all reaches (default 0.8)")
    p.add_argument("--latency-us", type=float, default=2.0, help="microseconds per message")
    p.add_argument("--groups", type=int, default=4, help="pipeline groups (HFFT_MPI_GROUPS)")
    a = p.parse_args(argv)
    text, n, esize = a.problem
    nodes = [int(v) for v in a.nodes.split(",")]
    n_elems = math.prod(n)

    def flops(count):
        return 5 * count * math.log2(count)

    print(f"Model of hfft_mpi (bench/mpi_model.py), {a.gpus_per_node} ranks per node with one "
          f"card each; rounds at {a.round_rate or a.pcie_duplex * a.gpus_per_node:.0f} GB/s per "
          f"node, on-node exchange at {a.host_copy:.0f} GB/s, network {a.net:.0f} GB/s per node "
          f"at {100 * a.net_efficiency:.0f}% with {a.latency_us:g} us per message, "
          f"{a.groups} pipeline groups.")
    rows = [(model(a, n_elems, esize, k), n_elems) for k in nodes]
    table(f"Strong scaling: {text} ({n_elems * esize / 2**40:.2f} TiB)", rows, flops, False)
    if a.per_node:
        rows = []
        for k in nodes:
            count = int(a.per_node * k / esize)
            rows.append((model(a, count, esize, k), count))
        table(f"Weak scaling: {a.per_node / 2**30:.0f} GiB per node", rows, flops, True)
    print("\nrounds: the two local rounds (rows, then columns) of each rank; all-to-alls: the "
          "two transposes' own time; all-to-all share: that time over the total; exposed: the "
          "part of the total not hidden behind the rounds; efficiency: strong scaling, "
          "node-seconds of the first row over this row's, weak scaling, the first row's time "
          "over this row's; device-resident: the same transform if the slab stayed on the "
          "cards between the rounds (copied in and out once, the exchanges card to card), "
          "which hfft_mpi does not do: its node plans take host arrays.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
