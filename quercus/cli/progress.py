"""Progress on stderr for long work, shown only when stderr is a terminal."""

import sys
import threading
import time

from ..export.text import display_width


class Progress:
    """A one-line status on a terminal: what runs, a step count, the seconds elapsed.

    Nothing is written when the stream is not a terminal (a pipe, a file, a test's capture)
    or when ``enabled`` is False (``--quiet``). A fit is one long compiled call, so a
    background thread redraws the elapsed time every half second; the kernels release the
    GIL, so the thread keeps running during the fit.

    Parameters
    ----------
    label : str
        What runs, e.g. ``"fitting C45Classifier on 1,000,000 rows"``.
    total : int, optional
        Number of steps (folds), shown as ``3/10`` after :meth:`step`.
    stream : file, default=sys.stderr
    enabled : bool or None, default=None
        None: when ``stream`` is a terminal.

    Examples
    --------
    >>> import io
    >>> with Progress("fitting", total=2, stream=io.StringIO()) as p:
    ...     p.step()
    >>> p.active
    False
    """

    def __init__(self, label, total=None, stream=None, enabled=None):
        self.label = label
        self.total = total
        self.done = 0
        self.stream = sys.stderr if stream is None else stream
        if enabled is None or enabled:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.active = enabled
        self._start = time.perf_counter()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = None
        self._width = 0

    def __enter__(self):
        if self.active:
            self._draw()
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        return self

    def step(self, n=1):
        """Count ``n`` finished steps and redraw."""
        self.done += n
        if self.active:
            self._draw()

    def _tick(self):
        while not self._stop.wait(0.5):
            self._draw()

    def _draw(self):
        text = f"{self.label}"
        if self.total:
            text += f" {self.done}/{self.total}"
        text += f" ... {time.perf_counter() - self._start:.0f} s"
        with self._lock:
            pad = " " * max(0, self._width - display_width(text))
            self.stream.write("\r" + text + pad)
            self.stream.flush()
            self._width = display_width(text)

    def __exit__(self, *exc):
        if self.active:
            self._stop.set()
            self._thread.join()
            with self._lock:
                self.stream.write("\r" + " " * self._width + "\r")
                self.stream.flush()
            self.active = False
        return False
