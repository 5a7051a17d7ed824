"""One GPU's live readings: bars against its own limits, fixed-scale history, state in words."""

from __future__ import annotations

import textwrap
from typing import ClassVar

from rich.style import Style
from rich.text import Text

from gpu_tui.core.devices.doctor import NOT_IN_JOB
from gpu_tui.core.devices.fields import Maybe, Unknown
from gpu_tui.core.monitor.history import GpuHistory, Series
from gpu_tui.core.monitor.history_window import WINDOWS
from gpu_tui.core.monitor.samples import GpuSample
from gpu_tui.core.units import (
    format_gigabytes,
    format_reading,
    format_reading_percent,
    format_temperature,
    gigabyte_symbol,
    temperature_symbol,
)
from gpu_tui.ui.monitor.draw import (
    bar,
    cells_text,
    fraction,
    known_float,
    rate,
)
from gpu_tui.ui.monitor.gpu_text import (
    activity_text,
    against,
    graphed,
    history_graphs,
    links_text,
    nvlink_text,
    readings,
    short_name,
    short_throttle_text,
    state_words,
    temperature_against,
    tensor_text,
    throttle_text,
)
from gpu_tui.ui.monitor.history_cells import HistoryCells
from gpu_tui.ui.monitor.rows import RowsWidget

MODES = ("line", "compact", "full")
"""``line``: one row (many GPUs on a small screen); ``compact``: three rows; ``full``: a card."""
LABEL = 6
"""Row labels (``SMCLK`` and a space) so the bars line up."""
FULL_ROWS = 10
"""Rows of the full card below its graphs (one more with MIG instances)."""
WARN_NEAR_LIMIT = frozenset({"memory_used_bytes", "temperature_c", "power_watts"})


class GpuCard(RowsWidget):
    """Draws one GPU slot. The pane sets ``mode`` (a CSS class too) and calls ``show``."""

    PART_PREFIX = "gpu-card"
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "gpu-card--label",
        "gpu-card--fill",
        "gpu-card--track",
        "gpu-card--graph",
        "gpu-card--warn",
        "gpu-card--hot",
        "gpu-card--lost",
        "gpu-card--badge",
        "gpu-card--dim",
    }

    def __init__(self, slot: int, mode: str, *, id: str | None = None) -> None:
        super().__init__(id=id, classes=f"-{mode}")
        self.slot = slot
        self.gpu: GpuSample | None = None
        self.history: GpuHistory | None = None
        self.device_name = f"GPU {slot}"
        self.mig: tuple[str, ...] = ()
        self.mode = mode
        self.window = (WINDOWS[0] or 60) * 1000
        """The zoom window the history is drawn over, in ms of sampling."""
        self._title: str | None = None
        self._history_cells = HistoryCells()

    def set_mode(self, mode: str) -> None:
        for name in MODES:
            self.set_class(name == mode, f"-{name}")
        self.mode = mode
        if self.gpu is not None:
            self.show(self.gpu, self.history, self.device_name, self.mig, self.window)
        self.refresh(layout=True)

    def show(
        self,
        gpu: GpuSample,
        history: GpuHistory | None,
        name: str,
        mig: tuple[str, ...],
        window: int,
    ) -> None:
        self.gpu, self.history, self.device_name, self.mig = gpu, history, short_name(name), mig
        self.window = window
        self.set_class(gpu.lost, "-lost")
        self.set_class(gpu.stale and not gpu.lost, "-stale")
        self.set_class(gpu.simulated, "-simulated")
        full = self.mode == "full"  # the other modes say it all inside, on their first row
        badge = " · SIMULATED" if gpu.simulated else ""
        state = f" · {state_words(gpu)}" if gpu.lost or gpu.stale or gpu.not_in_job else ""
        title = f"GPU {self.slot} · {self.device_name}{badge}{state}" if full else None
        if title != self._title:  # setting a title repaints the whole card, so only on change
            self.border_title = self._title = title
        # An idle GPU reads the same tick after tick: only rows that changed are repainted.
        self.update_rows()

    @property
    def state(self) -> str:
        """``LOST``, ``STALE``, ``not in this job`` or ``live`` — what the card shows about this
        reading."""
        gpu = self.gpu
        if gpu is None:
            return "waiting"
        if gpu.not_in_job:
            return "not in this job"
        return "LOST" if gpu.lost else "STALE" if gpu.stale else "live"

    def build_rows(self, width: int, height: int) -> list[Text]:
        gpu = self.gpu
        if gpu is None:
            return [Text(f"GPU {self.slot}: waiting for the first reading…", style=self._s("dim"))]
        if gpu.lost:
            return list(self._lost(gpu, width).split("\n"))
        if gpu.not_in_job:  # the heading names it, unless the title already does
            heading = [self._heading(gpu)] if self.mode != "full" else []
            words = textwrap.wrap(f"{NOT_IN_JOB[0].upper()}{NOT_IN_JOB[1:]}.", max(20, width))
            return heading + [Text(line, style=self._s("dim")) for line in words]
        if self.mode == "line":
            return [self._line(gpu, width)]
        if self.mode == "compact":
            return self._compact(gpu, width)
        return self._full(gpu, width, height)

    # ---- pieces -------------------------------------------------------------------------
    def _s(self, part: str) -> Style:
        return self.part(part)

    def _heading(self, gpu: GpuSample) -> Text:
        head = Text(f"{self.slot} ", style=self._s("label"))
        head.append(self.device_name, style="bold")
        if gpu.simulated:
            head.append(" ").append(" SIMULATED ", style=self._s("badge"))
        if gpu.stale:
            head.append(" ").append(" STALE ", style=self._s("warn") + Style(reverse=True))
        return head

    def _alert(self, share: float | None) -> Style:  # numbers: coloured only near the limit
        return self._level(share) if share is not None and share >= 0.85 else Style()

    def _level(self, share: float | None) -> Style:
        """Fill colour for readings with a limit: warn near it, hot at it."""
        if share is not None and share >= 0.95:
            return self._s("hot")
        if share is not None and share >= 0.85:
            return self._s("warn")
        return self._s("fill")

    def _bar(
        self, value: Maybe[float], high: float | None, width: int, limit: bool = False
    ) -> Text:
        reading = known_float(value)
        fill = self._level(fraction(reading, 0.0, high or 0.0)) if limit else self._s("fill")
        return bar(reading, width, fill, self._s("track"), high=high or 0.0)

    def _series(self, name: str) -> Series | None:
        return None if self.history is None else getattr(self.history, name)

    def _high(self, name: str, fallback: Maybe[float] | Maybe[int]) -> float | None:
        series = self._series(name)
        if series is not None and series.high is not None:
            return series.high
        return known_float(fallback)

    def _row(
        self,
        label: str,
        field: str,
        limit_field: str | None,
        end: str,
        width: int,
        graphed: tuple[str, ...] = (),
    ) -> Text:
        """A bar row, with a sparkline of the reading's history unless ``graphed`` has it
        (the card shows its graph above: the same story twice only costs a repaint)."""
        gpu = self.gpu
        assert gpu is not None
        high = 100.0 if limit_field is None else self._high(field, getattr(gpu, limit_field))
        bar_width = max(6, min(24, (width - LABEL) // 3))
        line = Text(f"{label:<{LABEL}}", style=self._s("label"))
        line.append_text(
            # Near the limit is a warning for heat, power and memory; a maxed clock is good news.
            self._bar(getattr(gpu, field), high, bar_width, limit=field in WARN_NEAR_LIMIT)
        )
        line.append(f" {end:<15}")
        series = self._series(field)
        rest = width - line.cell_len - 1
        if series is not None and rest > 3 and field not in graphed:
            spark_cells = " " + self._history_cells.spark(series, self.window, rest)
            line.append_text(cells_text((spark_cells, self._s("graph"))))
        return line

    def _extras(self, gpu: GpuSample, width: int) -> Text:
        """Links, video engines, fan and ECC; where the line is too narrow the fan, then the
        video engines, are left out whole: a figure cut short reads as a wrong one."""
        ecc = self._ecc(gpu)
        for video, fan in ((True, True), (True, False), (False, False)):
            text = links_text(gpu, video=video, fan=fan) + " · ECC "
            if len(text) + ecc.cell_len <= width:
                break
        return Text(text).append_text(ecc)

    def _ecc(self, gpu: GpuSample) -> Text:  # uncorrected since boot: any is worth red
        ecc = gpu.ecc_errors_uncorrected
        bad = not isinstance(ecc, Unknown) and ecc > 0
        return Text(format_reading(ecc), style=self._s("hot") if bad else "")

    def _throttle(self, gpu: GpuSample) -> Text:
        words = throttle_text(gpu.throttle_reasons)
        if isinstance(gpu.throttle_reasons, Unknown):
            return Text("clocks: reasons unknown", style=self._s("dim"))
        if not words:
            return Text("clocks: running free", style=self._s("dim"))
        idle = words == "idle"
        return Text("clocks held back: " + words, style=self._s("dim" if idle else "warn"))

    # ---- layouts ------------------------------------------------------------------------
    def _lost(self, gpu: GpuSample, width: int) -> Text:
        reason = (
            gpu.utilization_percent.reason if isinstance(gpu.utilization_percent, Unknown) else ""
        )
        text = self._heading(gpu) if self.mode != "full" else Text()
        text.append("  LOST" if self.mode != "full" else "LOST", style=self._s("lost"))
        text.append(f" — {reason}" if reason else "", style=self._s("lost"))
        if self.mode == "full":
            text.append("\nThe other GPUs keep updating; a lost GPU needs a reset to come back.")
        return text

    def _line(self, gpu: GpuSample, width: int) -> Text:
        ends = readings(gpu)
        line = Text(" GPU ", style=self._s("label")).append_text(
            self._bar(gpu.utilization_percent, 100.0, 6)
        )
        line.append(ends["util"])
        used_high = self._high("memory_used_bytes", gpu.memory_total_bytes)
        rest = Text("  VRAM ", style=self._s("label")).append_text(
            self._bar(gpu.memory_used_bytes, used_high, 5)
        )
        rest.append(f"{format_gigabytes(gpu.memory_used_bytes, symbol=False)}G")
        power = f"{format_reading(gpu.power_watts)}/{format_reading(gpu.power_limit_watts)}W"
        temp = format_temperature(gpu.temperature_c, symbol=False) + temperature_symbol()
        rest.append(f"  {temp}  {power}")
        # That the clocks are held back matters more than the tensor figure: the whole
        # reasons, else a word per kind, else HELD (the legend and a wider card say why). The
        # name keeps its width, so the cards' columns stay aligned. Idle is said where it fits.
        words = throttle_text(gpu.throttle_reasons)
        held = bool(words) and words != "idle"
        name_width = max(12, width // 4)
        figures = name_width + line.cell_len + rest.cell_len
        short = "held: " + short_throttle_text(gpu.throttle_reasons)
        tellings = (words, short, "HELD") if held else (words,) if words else ()
        fitting = [told for told in tellings if figures + 2 + len(told) <= width]
        told = fitting[0] if fitting else "HELD" if held else ""
        reason = Text("  " + told, style=self._s("warn" if held else "dim")) if told else Text()
        head = self._heading(gpu)
        head.truncate(name_width, overflow="ellipsis", pad=True)
        tensor = tensor_text(gpu)
        # Tensor activity only where its widest fits beside the figures after it: a power
        # figure cut short reads as a wrong one, and the column must not come and go.
        if tensor and figures + len(" tensor 100 %") + reason.cell_len <= width:
            line.append(" " + tensor, style=self._s("label"))
        head.append_text(line).append_text(rest).append_text(reason)
        head.truncate(width, overflow="ellipsis")
        return head

    def _compact(self, gpu: GpuSample, width: int) -> list[Text]:
        head = self._heading(gpu)
        head.append("  ").append_text(self._throttle(gpu))
        label = self._s("label")
        util = Text("GPU ", style=label).append_text(self._bar(gpu.utilization_percent, 100.0, 8))
        util.append(format_reading_percent(gpu.utilization_percent, width=5) + " ")
        tensor = tensor_text(gpu)
        if tensor:
            util.append(tensor + " ", style=label)
        rest = Text("  VRAM ", style=label)
        used_high = self._high("memory_used_bytes", gpu.memory_total_bytes)
        rest.append_text(self._bar(gpu.memory_used_bytes, used_high, 8))
        used = format_gigabytes(gpu.memory_used_bytes, symbol=False)
        rest.append(f" {used}/{format_gigabytes(gpu.memory_total_bytes, symbol=False)}G  ")
        temp_high = self._high("temperature_c", gpu.temperature_slowdown_c)
        temp_share = fraction(known_float(gpu.temperature_c), 0.0, temp_high)
        rest.append(
            temperature_against(gpu, gap=""),
            style=self._alert(temp_share),
        )
        power_high = self._high("power_watts", gpu.power_limit_watts)
        power_share = fraction(known_float(gpu.power_watts), 0.0, power_high)
        rest.append(
            "  " + against(gpu.power_watts, gpu.power_limit_watts, " W"),
            style=self._alert(power_share),
        )
        series = self._series("utilization_percent")
        room = width - util.cell_len - rest.cell_len
        if series is not None and room >= 4:
            spark_cells = self._history_cells.spark(series, self.window, room)
            util.append_text(cells_text((spark_cells, self._s("graph"))))
        util.append_text(rest)
        clocks = Text("SMCLK ", style=label).append(
            f"{format_reading(gpu.sm_clock_mhz)}/{format_reading(gpu.max_sm_clock_mhz)} MHz"
        )
        clocks.append("  MCLK ", style=label).append(
            format_reading(gpu.memory_clock_mhz, unit=" MHz")
        )
        clocks.append("  MCTL ", style=label).append(
            format_reading_percent(gpu.memory_utilization_percent) + " busy"
        )
        clocks.append("  PCIe ", style=label).append(
            f"↓{rate(gpu.pcie_rx_bytes_per_second)}↑{rate(gpu.pcie_tx_bytes_per_second)} GB/s"
        )
        clocks.append("  ECC ", style=label).append_text(self._ecc(gpu))  # before what may be cut
        # The rest only where it fits whole: a figure cut short reads as a wrong one.
        extras: list[tuple[str, str]] = []
        nvlink = nvlink_text(gpu)
        if nvlink:
            extras.append(("NVLink ", nvlink.removeprefix("NVLink ")))
        extras.append(
            (
                "ENC/DEC ",
                # A pair shares its unit, as 612/700 W does.
                f"{format_reading(gpu.encoder_percent)}/{format_reading(gpu.decoder_percent)} %",
            )
        )
        if not isinstance(gpu.fan_percent, Unknown):
            extras.append(("fan ", format_reading_percent(gpu.fan_percent)))
        for name, value in extras:
            if clocks.cell_len + 2 + len(name) + len(value) <= width:
                clocks.append("  " + name, style=label).append(value)
        for line in (head, util, clocks):
            line.truncate(width, overflow="ellipsis")
        return [head, util, clocks]

    def _mig_text(self, gpu: GpuSample) -> str:
        """Each MIG instance with its memory as read through its own handle (the GPU's own
        memory row does not see inside them), else the instances the inventory named."""
        if gpu.mig_instances:
            shown = (
                f"{m.profile} {format_gigabytes(m.memory_used_bytes, symbol=False)}"
                f"/{format_gigabytes(m.memory_total_bytes, symbol=False)}"
                for m in gpu.mig_instances
            )
            return f"MIG {gigabyte_symbol()}  " + ", ".join(shown)
        return "MIG  " + ", ".join(self.mig) if self.mig else ""

    def _full(self, gpu: GpuSample, width: int, height: int) -> list[Text]:
        ends = readings(gpu)
        mig = self._mig_text(gpu)
        activity = activity_text(gpu, width - LABEL)
        spare = height - FULL_ROWS - bool(mig)
        history = self.history if self.has_class("-fill") else None  # graphs fill spare rows
        drawn = graphed(spare) if history is not None else ()
        rows = [
            self._row("GPU", "utilization_percent", None, ends["util"], width, drawn),
            Text("CHIP".ljust(LABEL), style=self._s("label")).append(
                activity, style=self._s("dim") if isinstance(gpu.activity, Unknown) else ""
            ),
            self._row("MCTL", "memory_utilization_percent", None, ends["mem"] + " busy", width),
            self._row("VRAM", "memory_used_bytes", "memory_total_bytes", ends["vram"], width),
            self._row("TEMP", "temperature_c", "temperature_slowdown_c", ends["temp"], width),
            self._row("PWR", "power_watts", "power_limit_watts", ends["power"], width, drawn),
            self._row("SMCLK", "sm_clock_mhz", "max_sm_clock_mhz", ends["sm"], width),
            self._row("MCLK", "memory_clock_mhz", "max_memory_clock_mhz", ends["mclk"], width),
            self._extras(gpu, width),
            self._throttle(gpu),
        ]
        if mig:
            rows.append(Text(mig, style=self._s("dim")))
        assert len(rows) == FULL_ROWS + bool(mig)
        for line in rows:
            line.truncate(width, overflow="ellipsis")
        if history is None or not drawn:
            return rows
        graphs = history_graphs(
            history, gpu, (width, spare), self._s, self._history_cells, self.window
        )
        return graphs + rows
