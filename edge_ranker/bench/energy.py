"""Energy meters behind one interface, with an honest "unavailable" that says why and how to fix it.

Backends, in order: the Linux powercap sysfs tree read directly (Intel RAPL and AMD, which exposes the
same ``intel-rapl:N`` zones), then pyJoules if it is installed and works. pyJoules (last release 0.5.1,
2020) is unmaintained: it hard-codes the Intel path, crashes with ``reduce() of empty sequence`` where
RAPL is missing and its counter-wrap fix was never released, so it is only a fallback here.
RAPL counts the whole package (all processes), not one process; results say so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

POWERCAP = "/sys/class/powercap"
UDEV_RULE = (
    'SUBSYSTEM=="powercap", KERNEL=="intel-rapl*", RUN+="/usr/bin/chgrp $(id -gn) /sys/%p/energy_uj", '
    'RUN+="/usr/bin/chmod g+r /sys/%p/energy_uj"'
)
SYSFS_CONF = "mode class/powercap/intel-rapl:0/energy_uj = 0444"
FIX = (
    "energy_uj is root-only since Linux 5.10. To let your user read it (edge-ranker never applies this):\n"
    f"  udev rule, in /etc/udev/rules.d/99-powercap.rules:\n    {UDEV_RULE}\n"
    f"  or with sysfsutils, in /etc/sysfs.conf:\n    {SYSFS_CONF}\n"
    "  or run this one benchmark with sudo."
)


def _microjoules(path: Path) -> int:
    """A zone's ``energy_uj``, or ``EnergyUnavailable`` naming the file when it holds no count of microjoules."""
    try:
        text = path.read_text(errors="replace").strip()
    except OSError as exc:  # sysfs may refuse a read (ENODATA) that its listing allowed
        raise EnergyUnavailable(f"cannot read {path}: {exc.strerror or exc}", FIX) from exc
    if not (text.isascii() and text.isdigit()):
        raise EnergyUnavailable(
            f"{path} holds {text[:40]!r}, not a number of microjoules", "point --powercap-root at Linux's powercap"
        )
    return int(text)


def _counter_range(path: Path) -> int:
    """A zone's counter wraps past this many microjoules (2**32 where the file is missing)."""
    if not path.exists():
        return 2**32
    text = path.read_text(errors="replace").strip()
    if not (text.isascii() and text.isdigit() and int(text) > 0):
        raise EnergyUnavailable(
            f"{path} holds {text[:40]!r}, not a number of microjoules", "point --powercap-root at Linux's powercap"
        )
    return int(text)


class EnergyUnavailable(Exception):
    """No usable energy counter; ``reason`` says why and ``fix`` what the user can do."""

    def __init__(self, reason: str, fix: str = "") -> None:
        super().__init__(reason)
        self.reason, self.fix = reason, fix


@dataclass
class Zone:
    path: Path
    name: str
    max_range_uj: int


class PowercapMeter:
    """Reads ``energy_uj`` of every RAPL zone (package-N, core, uncore, dram, psys) under ``root``."""

    backend = "powercap"

    def __init__(self, root: str | Path = POWERCAP) -> None:
        root = Path(root)
        if not root.is_dir():
            raise EnergyUnavailable(
                f"no powercap interface at {root} (a VM, container, WSL, macOS or a CPU without RAPL)",
                "energy can only be measured on bare-metal Linux with Intel or AMD RAPL",
            )
        zones = []
        for d in sorted(root.glob("intel-rapl:*")):
            if not (d / "energy_uj").exists():
                continue
            name = (d / "name").read_text(errors="replace").strip() if (d / "name").exists() else d.name
            rng = _counter_range(d / "max_energy_range_uj")
            zones.append(Zone(d, f"{name}" if ":" not in d.name[len("intel-rapl:") :] else f"{name}@{d.name}", rng))
        if not zones:
            raise EnergyUnavailable(
                f"{root} has no RAPL zones (intel-rapl:*)",
                "the kernel's intel_rapl driver is not loaded: try `sudo modprobe intel_rapl_msr`",
            )
        unreadable = [z for z in zones if not os.access(z.path / "energy_uj", os.R_OK)]
        if unreadable:
            raise EnergyUnavailable(f"no read permission on {unreadable[0].path / 'energy_uj'}", FIX)
        self.zones = zones
        self.read()  # a counter that holds no number is named now, not in the middle of a measurement

    def read(self) -> dict[str, int]:
        return {z.name: _microjoules(z.path / "energy_uj") for z in self.zones}

    def delta_joules(self, start: dict[str, int], end: dict[str, int]) -> dict[str, float]:
        """Energy between two reads per zone; a counter that wrapped once adds ``max_energy_range_uj``."""
        out = {}
        for z in self.zones:
            d = end[z.name] - start[z.name]
            if d < 0:
                d += z.max_range_uj
            out[z.name] = d / 1e6
        return out

    @staticmethod
    def total(delta: dict[str, float]) -> float:
        """Package zones (sum over sockets); psys, when present, already covers the platform."""
        pkg = [v for k, v in delta.items() if k.startswith("package")]
        if pkg:
            return float(sum(pkg))
        return float(delta.get("psys", sum(delta.values())))


class PyJoulesMeter:
    """pyJoules' package domain, when pyJoules is installed and its RAPL device can be created."""

    backend = "pyjoules"

    def __init__(self) -> None:
        try:
            from pyJoules.device.rapl_device import RaplDevice, RaplPackageDomain
        except ImportError as exc:
            raise EnergyUnavailable("pyJoules is not installed (optional, unmaintained since 2020)") from exc
        try:
            self._device = RaplDevice()
            self._device.configure([RaplPackageDomain(0)])
        except Exception as exc:  # pyJoules raises TypeError/NoSuchDeviceError/PermissionError on no-RAPL
            raise EnergyUnavailable(f"pyJoules cannot read RAPL: {type(exc).__name__}: {exc}", FIX) from exc
        self.zones = [Zone(Path("pyjoules"), "package-0", 2**32)]

    def read(self) -> dict[str, int]:
        return {"package-0": int(self._device.get_energy()[0])}

    delta_joules = PowercapMeter.delta_joules
    total = staticmethod(PowercapMeter.total)


def open_meter(root: str | Path = POWERCAP, backends: tuple[str, ...] = ("powercap", "pyjoules")):
    """The first working backend; raises ``EnergyUnavailable`` listing every backend's reason."""
    reasons, fix = [], ""
    for name in backends:
        try:
            return PowercapMeter(root) if name == "powercap" else PyJoulesMeter()
        except EnergyUnavailable as exc:
            reasons.append(f"{name}: {exc.reason}")
            fix = fix or exc.fix
    raise EnergyUnavailable("; ".join(reasons), fix)
