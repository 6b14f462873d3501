"""The seed loop that step-fuzz.py and torch-fuzz.py share: which seeds a
`run` takes, the time limit, the counts of outcomes, how close the passing
seeds came to each tolerance, and the summary lines."""

import shutil
import tempfile
import time


def add_run_arguments(run, default_out):
    """The `run` subcommand's seed selection and output options."""
    run.add_argument("--count", type=int, default=20)
    run.add_argument("--seed-start", type=int, default=0)
    run.add_argument("--seeds", default="",
                     help="these seeds (comma-separated) instead")
    run.add_argument("--out", default=default_out)
    run.add_argument("--time-limit", type=float, default=0,
                     help="stop starting seeds after this many seconds")


class Campaign:
    """Runs `check(seed, tmp)` on each seed of `args` in a fresh temporary
    directory (removed afterwards) until the time limit; `check` returns
    (kind or None, message, margins) and saves its own failures."""

    def __init__(self, name, args):
        self.name, self.args = name, args
        self.counts, self.margins, self.failures = {}, {}, []
        self.start, self.last = time.time(), None

    def seeds(self):
        a = self.args
        if a.seeds:
            return [int(x) for x in a.seeds.split(",")]
        return range(a.seed_start, a.seed_start + a.count)

    def run(self, check):
        for seed in self.seeds():
            if (self.args.time_limit
                    and time.time() - self.start > self.args.time_limit):
                break
            tmp = tempfile.mkdtemp(prefix=self.name + "-")
            self.last = seed
            try:
                kind, msg, margins = check(seed, tmp)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            self.counts[kind or msg] = self.counts.get(kind or msg, 0) + 1
            for what, m in margins.items():
                if m > self.margins.get(what, (0.0, None))[0]:
                    self.margins[what] = (m, seed)
            if kind:
                self.failures.append((seed, kind, msg))
        return self

    def summary(self):
        print("%s: %d seeds (the last %s) in %.0f s: %s" %
              (self.name, sum(self.counts.values()), self.last,
               time.time() - self.start,
               ", ".join("%s %d" % kv for kv in sorted(self.counts.items()))))
        # How close the passing seeds came to each tolerance: a check whose
        # margin stays tiny is looser than it needs to be.
        print("largest difference / tolerance: " + ", ".join(
            "%s %.2f (seed %d)" % (what, m, seed)
            for what, (m, seed) in sorted(self.margins.items())))

    def exit_code(self):
        return 1 if self.failures else 0
