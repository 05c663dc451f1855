"""The runs a comparison is executing, named after its progress bar (scripts/compare.py)."""

import threading


class InFlight:
    """The runs executing now, named after the progress bar (a long run shows what it is); no
    bar (None): nothing shown."""

    def __init__(self, bar):
        self.bar, self.names, self.lock = bar, [], threading.Lock()

    def execute(self, runner, run, units):
        name = f"{run['config']}/{run['variant']}/{run['workload']}"
        self.show(name, True)
        try:
            return runner.execute(run, units)
        finally:
            self.show(name, False)

    def show(self, name, started):
        if self.bar is None:
            return
        with self.lock:
            if started:
                self.names.append(name)
            elif name in self.names:
                self.names.remove(name)
            more = f" +{len(self.names) - 2}" if len(self.names) > 2 else ""
            self.bar.set_postfix_str("running " + ", ".join(self.names[:2]) + more if self.names else "")
