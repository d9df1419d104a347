"""Terminal table, notes and PNG chart of a benchmark result; teacher/student ratios."""

from __future__ import annotations

import io


def _fmt_q(d: dict | None, scale: float = 1.0, digits: int = 2) -> str:
    if not d:
        return "n/a"
    return f"{d['p50'] * scale:.{digits}f} [{d['q1'] * scale:.{digits}f}, {d['q3'] * scale:.{digits}f}]"


def table(result: dict) -> str:
    rows = [
        (
            "model",
            "size MB",
            "p50 ms b1 short [Q1,Q3]",
            "p90",
            "p50 ms b1 long",
            "docs/s b32 short",
            "docs/s b32 long",
            "CPU ms/inf",
            "peak RSS MB",
            "energy mJ/inf net [Q1,Q3]",
        )
    ]
    for m in result["models"]:
        if "error" in m:
            rows.append((m["spec"], "error: " + m["error"][:60], *[""] * 8))
            continue
        e = m.get("energy_b1_short")
        rows.append(
            (
                m["model"],
                f"{m['size_bytes'] / 1e6:.1f}",
                _fmt_q(m["latency_ms_b1_short"]),
                f"{m['latency_ms_b1_short']['p90']:.2f}",
                f"{m['latency_ms_b1_long']['p50']:.2f}",
                f"{m['throughput_b32_short']:.0f}",
                f"{m['throughput_b32_long']:.0f}",
                f"{m['cpu_s_b1_short'] * 1e3:.3f}",
                f"{m['peak_rss_mb']:.0f}",
                _fmt_q(e["net_j"], 1e3) if e else "unavailable",
            )
        )
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)) for r in rows]
    mi = result["machine"]
    head = (
        f"machine: {mi['cpu']} | {mi['logical_cpus']} CPUs | threads {mi['threads']} | "
        f"governor {mi['governor']} | power {mi['power']}"
    )
    energy = result.get("energy")
    if energy and "unavailable" in energy:
        head += f"\nenergy: unavailable ({energy['unavailable']})\n{energy['fix']}"
    elif energy:
        head += f"\nenergy: {energy['backend']} zones {energy['zones']}; {energy['note']}"
    return head + "\n" + "\n".join(lines)


TEACHERS_HINT = "pip install 'edge-ranker[teachers]'"
CHART_HINT = "pip install 'edge-ranker[bench]'"


def notes(result: dict) -> list[str]:
    """One line per model that was skipped, with the install to fix it; one per model whose energy could not be
    measured, with why; one when the chart was not drawn, with the install to fix it."""
    lines = [f"skipped {s['spec']}: {s['skipped']}; teachers: {TEACHERS_HINT}" for s in result.get("skipped", [])]
    said = result.get("energy", {}).get("unavailable")  # in the table's head already
    lines += [
        f"energy of {m['model']} unavailable: {m['energy_unavailable']['reason']}"
        for m in result["models"]
        if "energy_unavailable" in m and not said
    ]
    if result.get("files", {}).get("json") and not result["files"].get("png"):
        lines.append(f"chart skipped: it needs matplotlib, which comes with {CHART_HINT}")
    return lines


def chart(result: dict) -> bytes:
    """Bar charts (log scale) of batch-1 latency and, where measured, energy or CPU time per inference, as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = [m for m in result["models"] if "error" not in m]
    names = [m["model"] for m in ok]
    colors = ["#d62728" if m["spec"].startswith("teacher:") else "#1f77b4" for m in ok]
    has_energy = all("energy_b1_short" in m for m in ok)
    fig, axes = plt.subplots(1, 2, figsize=(12, 0.6 * len(ok) + 2.2))
    lat = [m["latency_ms_b1_short"]["p50"] for m in ok]
    err = [
        [m["latency_ms_b1_short"]["p50"] - m["latency_ms_b1_short"]["q1"] for m in ok],
        [m["latency_ms_b1_short"]["q3"] - m["latency_ms_b1_short"]["p50"] for m in ok],
    ]
    axes[0].barh(names, lat, xerr=err, color=colors)
    axes[0].set_xscale("log")
    axes[0].set_xlabel("latency, batch 1, short input (ms, median with IQR; log scale)")
    for i, (v, m) in enumerate(zip(lat, ok)):
        axes[0].text(m["latency_ms_b1_short"]["q3"], i, f"  {v:.2f} ms", va="center")
    if has_energy:
        vals = [m["energy_b1_short"]["net_j"]["p50"] * 1e3 for m in ok]
        label = "energy per inference, net of idle (mJ, RAPL package)"
    else:
        vals = [m["cpu_s_b1_short"] * 1e3 for m in ok]
        label = "CPU time per inference, user+sys (ms) — energy counters unavailable"
    axes[1].barh(names, vals, color=colors)
    axes[1].set_xscale("log")
    axes[1].set_xlabel(label)
    axes[1].set_yticklabels([])
    for i, v in enumerate(vals):
        axes[1].text(v, i, f" {v:.3g}", va="center")
    from matplotlib.ticker import NullFormatter

    for ax, v in ((axes[0], lat), (axes[1], vals)):
        ax.set_xlim(min(v) / 3, max(v) * 8)  # room for the labels; a log axis has no zero
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.invert_yaxis()
        ax.grid(axis="x", which="both", alpha=0.3)
    fig.suptitle(
        f"edge-ranker bench — {result['machine']['cpu']}, {result['machine']['threads']} thread(s); "
        "red: teachers, blue: students"
    )
    fig.tight_layout()
    png = io.BytesIO()
    fig.savefig(png, dpi=110, format="png")
    plt.close(fig)
    return png.getvalue()


def ratios(result: dict, pairs: list[tuple[str, str]]) -> dict[str, float]:
    """Teacher/student batch-1 latency ratios for (student spec, teacher spec) pairs present in the result."""
    by = {m["spec"]: m for m in result["models"] if "error" not in m}
    return {
        f"{t} / {s}": by[t]["latency_ms_b1_short"]["p50"] / by[s]["latency_ms_b1_short"]["p50"]
        for s, t in pairs
        if s in by and t in by
    }
