#!/usr/bin/env python3
"""A driver for the OperationConformance harness, written from Specs/driver-protocol.md alone.

It contains its own small implementation of the NSOperation / NSOperationQueue model in
Python (standard library only): operations (main subclasses, block operations, invocation
operations, concurrent subclasses running their step programs), queues with real worker
threads, widths, suspension, priorities, readiness through dependencies, cancel and
cancelAll, completion blocks, waits, key-value-observing notifications, and errors for misuse.
It reads a request line on standard input and writes the case's trace as JSON lines on
standard output. It speaks protocol 3: one process serves case after case (a session) while
each case leaves nothing behind, and a request of protocol 2 gets one case and an exit.

    driver.py                          the correct model
    driver.py --bug add-ignores-suspension
                                       the planted bug: addOperation wakes a worker without
                                       looking at isSuspended, so a suspended queue starts
                                       the operations added to it
    driver.py --bug raw-priority       another: setQueuePriority stores the raw value instead
                                       of normalising it to a defined priority
    driver.py --bug start-cancelled    another: the default start forgets to look at
                                       isCancelled, so a cancelled operation's main runs anyway
    driver.py --bug ignore-priorities  another: queues pick in the order added
"""

import json
import os
import sys
import threading
import time
import traceback

NAME = "python"
PROTOCOLS = (2, 3)    # a request of 2 gets one case and an exit; of 3, a session
CAPABILITIES = ["threadIdentity", "threadNames", "threadPriority", "kvo",
                "thrownErrors", "superStart", "finishing", "undefinedQueuePriorities"]
BUGS = ("add-ignores-suspension", "raw-priority", "start-cancelled", "ignore-priorities")

STATE_KEYS = ("isCancelled", "isConcurrent", "isExecuting", "isFinished", "isReady",
              "dependencies", "queuePriority", "completionBlock", "threadPriority")
BOOL_KEYS = ("isCancelled", "isConcurrent", "isExecuting", "isFinished", "isReady",
             "completionBlock")

BUG = None          # the planted bug in effect, or None
OUT = sys.stdout
PARENT = None       # the parent process when the driver started: the harness (see Driver.watch)


# ----------------------------------------------------------------------------------------
# Output


def write_line(obj):
    OUT.write(json.dumps(obj, separators=(",", ":")) + "\n")
    OUT.flush()


def refuse(sentence):
    write_line({"error": {"_0": sentence}})
    sys.exit(2)


def jnum(x):
    """A double in its shortest exact form, integral values without a point."""
    x = float(x)
    return int(x) if x.is_integer() else x


# ----------------------------------------------------------------------------------------
# Decoding and checking the request. Every problem raises Invalid with one sentence.


class Invalid(Exception):
    pass


def case_of(j, what):
    if not isinstance(j, dict) or len(j) != 1:
        raise Invalid("%s is not an object with exactly one case name" % what)
    (name, fields), = j.items()
    if fields is None:
        fields = {}
    if not isinstance(fields, dict):
        raise Invalid("the fields of %s '%s' are not an object" % (what, name))
    return name, fields


def field(f, key, what):
    if key not in f or f[key] is None:
        raise Invalid("%s lacks its field '%s'" % (what, key))
    return f[key]


def as_int(v, what):
    if isinstance(v, bool) or not isinstance(v, int):
        raise Invalid("%s is not an integer" % what)
    return v


def as_bool(v, what):
    if not isinstance(v, bool):
        raise Invalid("%s is not a boolean" % what)
    return v


def as_num(v, what):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise Invalid("%s is not a number" % what)
    return float(v)


def as_str(v, what):
    if not isinstance(v, str):
        raise Invalid("%s is not a string" % what)
    return v


def as_list(v, what):
    if not isinstance(v, list):
        raise Invalid("%s is not an array" % what)
    return v


def as_key(v, what):
    if v not in STATE_KEYS:
        raise Invalid("%s is not a state key: %r" % (what, v))
    return v


def dec_ref(j):
    name, f = case_of(j, "an operation reference")
    if name == "this":
        return None
    if name == "op":
        return as_int(field(f, "_0", "op reference"), "an operation reference")
    raise Invalid("unknown operation reference '%s'" % name)


def dec_cond(j):
    name, f = case_of(j, "a condition")
    if name in ("isCancelled", "isReady", "isConcurrent", "isExecuting", "isFinished"):
        return (name, dec_ref(field(f, "_0", name)))
    if name == "not":
        return ("not", dec_cond(field(f, "_0", "not")))
    if name == "and":
        return ("and", dec_cond(field(f, "_0", "and")), dec_cond(field(f, "_1", "and")))
    raise Invalid("unknown condition '%s'" % name)


def dec_steps(j, what="a step list"):
    return [dec_step(s) for s in as_list(j, what)]


def dec_step(j):
    name, f = case_of(j, "a step")
    if name == "work":
        return ("work", as_int(field(f, "_0", "work"), "work's units"))
    if name in ("returnIfCancelled", "return", "callMain", "callSuperStart"):
        return (name,)
    if name == "if":
        return ("if", dec_cond(field(f, "_0", "if")),
                dec_steps(f.get("then") or [], "if's then"),
                dec_steps(f.get("else") or [], "if's else"))
    if name == "repeat":
        return ("repeat", as_int(field(f, "_0", "repeat"), "repeat's count"),
                dec_steps(field(f, "_1", "repeat"), "repeat's body"))
    if name in ("willChange", "didChange"):
        return (name, as_key(field(f, "_0", name), name + "'s key"))
    if name in ("willChangeUnprefixed", "didChangeUnprefixed"):
        key = as_key(field(f, "_0", name), name + "'s key")
        if key not in ("isCancelled", "isConcurrent", "isExecuting", "isFinished", "isReady"):
            raise Invalid("%s names %s, which has no 'is' prefix" % (name, key))
        return (name, key)
    if name == "set":
        return ("set", as_key(field(f, "_0", "set"), "set's key"),
                as_bool(field(f, "_1", "set"), "set's value"))
    if name == "call":
        return ("call", as_str(field(f, "_0", "call"), "call's routine"))
    if name == "spawn":
        method = as_str(field(f, "_0", "spawn"), "spawn's method")
        if method not in ("start", "main"):
            raise Invalid("spawn names the method '%s', not start or main" % method)
        return ("spawn", method, dec_ref(field(f, "_1", "spawn")))
    if name in ("start", "cancel"):
        return (name, dec_ref(field(f, "_0", name)))
    if name == "read":
        return ("read", as_key(field(f, "_0", "read"), "read's key"),
                dec_ref(field(f, "_1", "read")))
    if name == "signal":
        return ("signal", as_int(field(f, "_0", "signal"), "signal's token"))
    if name == "await":
        return ("await", as_int(field(f, "_0", "await"), "await's token"),
                as_int(field(f, "timeout", "await"), "await's timeout"))
    raise Invalid("unknown step '%s'" % name)


def dec_trigger(j):
    name, f = case_of(j, "a trigger")
    if name in ("started", "mainBegan", "finished"):
        return (name, as_int(field(f, "_0", name), "a trigger's operation"))
    if name == "blockBegan":
        return (name, as_int(field(f, "_0", name), "a trigger's operation"),
                as_int(field(f, "block", name), "a trigger's block"))
    raise Invalid("unknown trigger '%s'" % name)


def dec_action(j):
    name, f = case_of(j, "a driver action")
    i = lambda key: as_int(field(f, key, name), "%s's %s" % (name, key))
    if name == "add":
        return (name, i("op"), i("queue"))
    if name == "addBatch":
        ops = [as_int(o, "addBatch's operation") for o in as_list(field(f, "ops", name), "ops")]
        return (name, ops, i("queue"), as_bool(field(f, "wait", name), "addBatch's wait"))
    if name in ("start", "cancel", "waitUntilFinished", "result"):
        return (name, i("_0"))
    if name == "perform":
        return (name, i("op"), dec_steps(field(f, "_1", name), "perform's steps"))
    if name in ("cancelAll", "suspend", "resume", "waitUntilAllFinished", "readOperationCount"):
        return (name, i("queue"))
    if name == "setMaxConcurrent":
        return (name, i("queue"), i("_1"))
    if name in ("addDependency", "removeDependency"):
        return (name, i("op"), i("on"))
    if name in ("setCompletionBlock", "addExecutionBlock"):
        return (name, i("op"), dec_steps(field(f, "_1", name), name + "'s steps"))
    if name == "setQueuePriority":
        return (name, i("op"), i("_1"))
    if name == "setThreadPriority":
        return (name, i("op"), as_num(field(f, "_1", name), "a thread priority"))
    if name == "read":
        return (name, as_key(field(f, "_0", name), "read's key"), i("op"))
    raise Invalid("unknown driver action '%s'" % name)


class OpSpec:
    def __init__(self, j, n):
        if not isinstance(j, dict):
            raise Invalid("operation %d is not an object" % n)
        name, f = case_of(field(j, "kind", "operation %d" % n), "operation %d's kind" % n)
        self.kind = name
        self.routines = {}
        self.start_steps = []
        self.overrides_start = False
        self.overrides_is_concurrent = False
        if name in ("main", "invocation"):
            self.body = dec_steps(field(f, "_0", name), "a body")
        elif name == "block":
            self.blocks = [dec_steps(b, "a block") for b in as_list(field(f, "_0", name), "blocks")]
        elif name == "concurrent":
            c = field(f, "_0", name)
            if not isinstance(c, dict):
                raise Invalid("operation %d's subclass is not an object" % n)
            self.body = dec_steps(c.get("main") or [], "a subclass's main")
            self.start_steps = dec_steps(c.get("start") or [], "a subclass's start")
            # An empty start program is read as "start not overridden" (the spec is silent).
            self.overrides_start = len(self.start_steps) > 0
            self.overrides_is_concurrent = as_bool(c.get("overridesIsConcurrent", False),
                                                   "overridesIsConcurrent")
            for r in as_list(c.get("routines") or [], "routines"):
                if not isinstance(r, dict):
                    raise Invalid("a routine is not an object")
                self.routines[as_str(field(r, "name", "a routine"), "a routine's name")] = \
                    dec_steps(field(r, "body", "a routine"), "a routine's body")
        else:
            raise Invalid("unknown operation kind '%s'" % name)
        qp = j.get("queuePriority")
        self.queue_priority = None if qp is None else as_int(qp, "a queue priority")
        tp = j.get("threadPriority")
        self.thread_priority = None if tp is None else as_num(tp, "a thread priority")
        comp = j.get("completion")
        self.completion = None if comp is None else dec_steps(comp, "a completion block")


class Scenario:
    def __init__(self, j):
        if not isinstance(j, dict):
            raise Invalid("the scenario is not an object")
        fmt = as_int(field(j, "format", "the scenario"), "the scenario's format")
        if fmt != 1:
            raise Invalid("the scenario's format is %d; this driver reads format 1" % fmt)
        self.queues = []
        for n, q in enumerate(as_list(field(j, "queues", "the scenario"), "queues")):
            if not isinstance(q, dict):
                raise Invalid("queue %d is not an object" % n)
            width = as_int(field(q, "maxConcurrent", "queue %d" % n), "maxConcurrent")
            self.queues.append((width, as_bool(q.get("suspended", False), "suspended")))
        self.ops = [OpSpec(o, n) for n, o in
                    enumerate(as_list(field(j, "operations", "the scenario"), "operations"))]
        self.deps = []
        for d in as_list(j.get("dependencies") or [], "dependencies"):
            if not isinstance(d, dict):
                raise Invalid("a dependency is not an object")
            self.deps.append((as_int(field(d, "op", "a dependency"), "a dependency's op"),
                              as_int(field(d, "on", "a dependency"), "a dependency's on")))
        self.steps = []
        for s in as_list(field(j, "driver", "the scenario"), "driver"):
            if not isinstance(s, dict):
                raise Invalid("a driver step is not an object")
            after = s.get("after")
            self.steps.append((dec_action(field(s, "action", "a driver step")),
                               None if after is None else dec_trigger(after)))
        self.check()

    # The validity rules of "The request".
    def check(self):
        nops, nq = len(self.ops), len(self.queues)

        def op(n, where):
            if not 0 <= n < nops:
                raise Invalid("%s names operation %d, but the scenario has %d" % (where, n, nops))

        def queue(n, where):
            if not 0 <= n < nq:
                raise Invalid("%s names queue %d, but the scenario has %d" % (where, n, nq))

        for n, (width, _) in enumerate(self.queues):
            if width < -1:
                raise Invalid("queue %d has maxConcurrent %d, below -1" % (n, width))
        for a, b in self.deps:
            op(a, "a dependency")
            op(b, "a dependency")
        blocks = [len(o.blocks) if o.kind == "block" else 0 for o in self.ops]
        for n, o in enumerate(self.ops):
            if o.kind == "block" and not o.blocks:
                raise Invalid("block operation %d has no blocks" % n)
            if o.thread_priority is not None and o.thread_priority != o.thread_priority:
                raise Invalid("operation %d's thread priority is not a number" % n)
        for (act, _trig) in self.steps:
            if act[0] == "addExecutionBlock" and 0 <= act[1] < nops:
                blocks[act[1]] += 1
        for n, o in enumerate(self.ops):
            where = "operation %d" % n
            if o.kind in ("main", "invocation", "concurrent"):
                self.code(o.body, n, where)
            if o.kind == "block":
                for b in o.blocks:
                    self.code(b, n, where)
            if o.kind == "concurrent":
                self.code(o.start_steps, n, where)
                for body in o.routines.values():
                    self.code(body, n, where)
            if o.completion is not None:
                self.code(o.completion, n, where)
        for i, (act, trig) in enumerate(self.steps):
            where = "driver step %d" % i
            k = act[0]
            if trig is not None:
                op(trig[1], where + "'s trigger")
                if trig[0] == "blockBegan" and not 0 <= trig[2] < blocks[trig[1]]:
                    raise Invalid("%s's trigger names block %d of operation %d, which has %d"
                                  % (where, trig[2], trig[1], blocks[trig[1]]))
            if k == "add":
                op(act[1], where)
                queue(act[2], where)
            elif k == "addBatch":
                if not act[1]:
                    raise Invalid("%s adds an empty batch" % where)
                for o in act[1]:
                    op(o, where)
                queue(act[2], where)
            elif k in ("start", "cancel", "waitUntilFinished"):
                op(act[1], where)
            elif k == "result":
                op(act[1], where)
                if self.ops[act[1]].kind != "invocation":
                    raise Invalid("%s asks the result of operation %d, not an invocation "
                                  "operation" % (where, act[1]))
            elif k == "perform":
                op(act[1], where)
                self.code(act[2], act[1], where)
            elif k in ("cancelAll", "suspend", "resume", "waitUntilAllFinished",
                       "readOperationCount"):
                queue(act[1], where)
            elif k == "setMaxConcurrent":
                queue(act[1], where)
                if act[2] < -1:
                    raise Invalid("%s sets maxConcurrent %d, below -1" % (where, act[2]))
            elif k in ("addDependency", "removeDependency"):
                op(act[1], where)
                op(act[2], where)
            elif k == "setCompletionBlock":
                op(act[1], where)
                self.code(act[2], act[1], where)
            elif k == "addExecutionBlock":
                op(act[1], where)
                if self.ops[act[1]].kind != "block":
                    raise Invalid("%s adds an execution block to operation %d, not a block "
                                  "operation" % (where, act[1]))
                self.code(act[2], act[1], where)
            elif k in ("setQueuePriority", "setThreadPriority", "read"):
                op(act[2] if k == "read" else act[1], where)

    def code(self, steps, me, where):
        nops = len(self.ops)
        spec = self.ops[me]

        def ref(r):
            if r is not None and not 0 <= r < nops:
                raise Invalid("%s's code names operation %d, but the scenario has %d"
                              % (where, r, nops))

        def cond(c):
            if c[0] == "not":
                cond(c[1])
            elif c[0] == "and":
                cond(c[1])
                cond(c[2])
            else:
                ref(c[1])

        for s in steps:
            k = s[0]
            if k == "work" and not 0 <= s[1] <= 1000000:
                raise Invalid("%s works %d units, outside 0...1000000" % (where, s[1]))
            if k == "repeat":
                if not 0 <= s[1] <= 10000:
                    raise Invalid("%s repeats %d times, outside 0...10000" % (where, s[1]))
                self.code(s[2], me, where)
            if k == "await" and not 1 <= s[2] <= 1000000:
                raise Invalid("%s awaits with timeout %d, outside 1...1000000" % (where, s[2]))
            if k == "if":
                cond(s[1])
                self.code(s[2], me, where)
                self.code(s[3], me, where)
            if k == "set" and s[1] not in ("isExecuting", "isFinished"):
                raise Invalid("%s stores into %s, not isExecuting or isFinished" % (where, s[1]))
            if k in ("set", "willChange", "didChange", "willChangeUnprefixed", "didChangeUnprefixed") \
                    and s[1] in ("isExecuting", "isFinished") \
                    and spec.kind != "concurrent":
                raise Invalid("%s uses %s of %s outside a concurrent subclass" % (where, k, s[1]))
            if k == "call" and s[1] not in spec.routines:
                raise Invalid("%s calls the routine '%s', which operation %d does not define"
                              % (where, s[1], me))
            if k == "callSuperStart" and not spec.overrides_start:
                raise Invalid("%s calls [super start] in operation %d, which does not override "
                              "start" % (where, me))
            if k in ("spawn", "start", "cancel", "read"):
                ref(s[-1] if k != "start" and k != "cancel" else s[1])

    def longest_silent_units(self):
        best = [0]

        def walk(steps):
            for s in steps:
                if s[0] == "work":
                    best[0] = max(best[0], s[1])
                elif s[0] == "await":
                    best[0] = max(best[0], s[2])
                elif s[0] == "repeat":
                    walk(s[2])
                elif s[0] == "if":
                    walk(s[2])
                    walk(s[3])

        for o in self.ops:
            if o.kind == "block":
                for b in o.blocks:
                    walk(b)
            else:
                walk(o.body)
            walk(o.start_steps)
            for body in o.routines.values():
                walk(body)
            if o.completion is not None:
                walk(o.completion)
        for act, _ in self.steps:
            if act[0] in ("perform", "setCompletionBlock", "addExecutionBlock"):
                walk(act[2])
        return best[0]


# ----------------------------------------------------------------------------------------
# The active-time clock (driver-protocol.md, "Active time"): a heartbeat every 10 ms; a beat
# more than 30 ms after the previous one counts only 30 ms.


class Clock:
    BEAT = 0.010
    SLACK = 0.030

    def __init__(self):
        self.lock = threading.Lock()
        self.active = 0.0
        self.last = time.monotonic()
        t = threading.Thread(target=self.run, name="heartbeat", daemon=True)
        t.start()

    def run(self):
        while True:
            time.sleep(self.BEAT)
            with self.lock:
                now = time.monotonic()
                self.active += min(now - self.last, self.SLACK)
                self.last = now

    def now(self):
        with self.lock:
            return self.active + min(time.monotonic() - self.last, self.SLACK)


# ----------------------------------------------------------------------------------------
# The trace. One lock hands out seq, numbers threads and writes each line whole.


class Trace:
    def __init__(self, clock):
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        self.clock = clock
        self.seq = 0
        self.threads = 0
        self.local = threading.local()
        self.closed = False
        self.last_active = clock.now()
        self.last_thread = 0
        # what the driver's triggers look for
        self.started = set()
        self.main_began = set()
        self.block_began = set()
        self.finished = set()

    def _write(self, kind, thread):
        OUT.write('{"event":{"_0":{"kind":%s,"seq":%d,"thread":%d}}}\n'
                  % (json.dumps(kind, separators=(",", ":")), self.seq, thread))
        OUT.flush()
        self.seq += 1
        self.last_thread = thread
        self.last_active = self.clock.now()

    def emit(self, kind):
        with self.lock:
            if self.closed:
                return
            num = getattr(self.local, "num", None)
            if num is None:
                num = self.threads
                self.threads += 1
                self.local.num = num
                started = {"name": threading.current_thread().name}
                q = getattr(self.local, "queue", None)
                if q is not None:
                    started["queue"] = q
                self._write({"threadStarted": started}, num)
            if kind is not None:
                self._write(kind, num)
                self._observe(kind)
            self.cond.notify_all()

    def _observe(self, kind):
        (name, f), = kind.items()
        if name == "call" and "start" in f["_0"]:
            self.started.add(f["_0"]["start"]["_0"])
        elif name == "mainBegan":
            self.main_began.add(f["op"])
        elif name == "blockBegan":
            self.block_began.add((f["op"], f["block"]))
        elif name in ("read", "didChange") and f["_1"] == "isFinished" and f["_2"]["bool"]["_0"]:
            self.finished.add(f["op"])
        elif name == "set" and f["_1"] == "isFinished" and f["_2"]:
            self.finished.add(f["op"])

    def last(self, kind, thread=None, next_case=False):
        """Writes the trace's last event (end or hang), then done; drops everything after.
        next_case: done says next (protocol 3), and this process reads the next request."""
        with self.lock:
            if self.closed:
                return False
            self._write(kind, self.last_thread if thread is None else thread)
            self.closed = True
            write_line({"done": {"next": True} if next_case else {}})
            return True


TRACE = None
CLOCK = None
M = threading.RLock()                 # the model's lock: every state change, with its events
FINISHED = threading.Condition(M)     # signalled whenever an operation finishes
TL = threading.local()                # per thread: its model thread priority


def emit(kind):
    TRACE.emit(kind)


def value_json(key, v):
    if key in BOOL_KEYS:
        return {"bool": {"_0": bool(v)}}
    if key == "queuePriority":
        return {"int": {"_0": v}}
    if key == "threadPriority":
        return {"double": {"_0": jnum(v)}}
    return {"ops": {"_0": list(v)}}


def thread_priority():
    return getattr(TL, "priority", 0.5)


# ----------------------------------------------------------------------------------------
# The model


class Misuse(Exception):
    def __init__(self, kind, message):
        Exception.__init__(self, message)
        self.kind = kind
        self.message = message


class Return(Exception):
    """`return` in a step program: unwinds to the innermost routine."""


def normalise_priority(raw):
    if raw >= 8:
        return 8
    if raw <= -8:
        return -8
    if raw >= 0:
        return raw // 4 * 4
    return -((-raw) // 4 * 4)


class Model:
    def __init__(self, scenario, unit_us, patience=1):
        self.scenario = scenario
        self.unit = unit_us / 1e6
        # A rendezvous waits `patience` times longer when the harness asks (Specs/driver-protocol.md,
        # "Patience"): a case run again to tell a slow block from a starved one.
        self.patience = patience
        self.ops = [Operation(self, n, s) for n, s in enumerate(scenario.ops)]
        self.queues = [Queue(self, n) for n in range(len(scenario.queues))]
        self.tokens = set()
        self.token_cond = threading.Condition(threading.Lock())
        self.inflight = 0          # completion blocks and detached threads still running

    def detach(self, name, target):
        with M:
            self.inflight += 1

        def body():
            try:
                target()
            finally:
                with M:
                    self.inflight -= 1
        t = threading.Thread(target=guarded(body), name=name, daemon=True)
        t.start()
        return t

    # the step interpreter ---------------------------------------------------------------

    def ref(self, me, r):
        return me if r is None else self.ops[r]

    def routine(self, me, steps):
        try:
            self.steps(me, steps)
        except Return:
            pass

    def steps(self, me, steps):
        for s in steps:
            self.step(me, s)

    def cond(self, me, c):
        k = c[0]
        if k == "not":
            return not self.cond(me, c[1])
        if k == "and":
            return self.cond(me, c[1]) and self.cond(me, c[2])
        return self.ref(me, c[1]).get(k)

    def step(self, me, s):
        k = s[0]
        if k == "work":
            if s[1] > 0:
                emit({"work": {"op": me.n, "units": s[1]}})
                time.sleep(s[1] * self.unit)
            else:
                time.sleep(0)
        elif k == "returnIfCancelled":
            if me.get("isCancelled"):
                raise Return()
        elif k == "if":
            self.steps(me, s[2] if self.cond(me, s[1]) else s[3])
        elif k == "repeat":
            for _ in range(s[1]):
                self.steps(me, s[2])
        elif k == "return":
            raise Return()
        elif k == "willChange":
            me.will_change(s[1])
        elif k == "didChange":
            me.did_change(s[1])
        elif k in ("willChangeUnprefixed", "didChangeUnprefixed"):
            # Sent as "finished" or "executing": this implementation's observers (its queues,
            # the operations that depend on it) watch the "is" names only, so nobody hears it.
            pass
        elif k == "set":
            me.store(s[1], s[2])
        elif k == "call":
            self.routine(me, me.spec.routines[s[1]])
        elif k == "callMain":
            me.main()
        elif k == "callSuperStart":
            me.start("program", super_start=True)
        elif k == "spawn":
            op = self.ref(me, s[2])
            if s[1] == "start":
                self.detach("detached start %d" % op.n, lambda: op.start("program"))
            else:
                self.detach("detached main %d" % op.n, op.main)
        elif k == "start":
            self.ref(me, s[1]).start("program")
        elif k == "cancel":
            self.ref(me, s[1]).cancel()
        elif k == "read":
            self.ref(me, s[2]).get(s[1])
        elif k == "signal":
            emit({"signal": {"token": s[1]}})
            with self.token_cond:
                self.tokens.add(s[1])
                self.token_cond.notify_all()
        elif k == "await":
            self.await_token(s[1], s[2])
        else:
            raise AssertionError("step %r" % (s,))

    def await_token(self, token, timeout):
        deadline = CLOCK.now() + timeout * self.unit * self.patience
        with self.token_cond:
            while token not in self.tokens:
                left = deadline - CLOCK.now()
                if left <= 0:
                    break
                self.token_cond.wait(min(left, 0.005))
            got = token in self.tokens
        emit({"awaited": {"satisfied": got, "token": token}})


def guarded(fn):
    """A thread of the model that fails is a bug of this driver: die loudly (RUN-CRASH)."""
    def run():
        try:
            fn()
        except BaseException:
            traceback.print_exc()
            sys.stderr.write("Fatal error: the driver's model raised on thread %s\n"
                             % threading.current_thread().name)
            sys.stderr.flush()
            os._exit(70)
    return run


def api(call, fn):
    """An API call: `call` before, then `returned`, or `threw` when the model refuses it."""
    with M:
        emit({"call": {"_0": call}})
        try:
            fn()
        except Misuse as e:
            emit({"threw": {"_0": call, "_1": e.kind, "_2": e.message}})
            return False
        emit({"returned": {"_0": call}})
        return True


class Operation:
    def __init__(self, model, n, spec):
        self.model = model
        self.n = n
        self.spec = spec
        self.kind = spec.kind
        self.cancelled = False
        self.state = "idle"            # the default start's own state: idle, executing, finished
        self.ivar_executing = False    # a concurrent subclass's ivars
        self.ivar_finished = False
        self.deps = []
        self.unfinished = set()
        self.dependents = []
        self.delivered = False         # a did-change of isFinished YES has been handled
        self.queue = None
        self.start_accepted = False
        self.priority = 0
        self.thread_priority = 0.5
        self.completion = None
        self.completion_dispatched = False
        self.blocks = list(spec.blocks) if self.kind == "block" else []
        self.has_result = False

    # values, as the getters compute them (without logging) ---------------------------

    def value(self, key):
        if key == "isCancelled":
            return self.cancelled
        if key == "isExecuting":
            if self.kind == "concurrent":
                return self.ivar_executing
            return self.state == "executing"
        if key == "isFinished":
            if self.kind == "concurrent":
                return self.ivar_finished
            return self.state == "finished"
        if key == "isReady":
            return (self.cancelled or not self.unfinished or self.value("isExecuting")
                    or self.value("isFinished"))
        if key == "isConcurrent":
            return self.kind == "concurrent" and self.spec.overrides_is_concurrent
        if key == "queuePriority":
            return self.priority
        if key == "threadPriority":
            return self.thread_priority
        if key == "completionBlock":
            return self.completion is not None
        if key == "dependencies":
            return [d.n for d in self.deps]
        raise AssertionError(key)

    def get(self, key):
        """A getter call: the value is taken, then logged, under the model's lock."""
        with M:
            v = self.value(key)
            emit({"read": {"_1": key, "_2": value_json(key, v), "op": self.n}})
            return v

    # key-value observing ---------------------------------------------------------------

    def will_change(self, key):
        with M:
            emit({"willChange": {"_1": key, "_2": value_json(key, self.value(key)),
                                 "op": self.n}})

    def did_change(self, key):
        with M:
            v = self.value(key)
            emit({"didChange": {"_1": key, "_2": value_json(key, v), "op": self.n}})
            # the model's own observers
            if key == "isFinished" and v:
                self.finished()
            elif key == "isReady" and v and self.queue is not None:
                self.queue.pump()

    def store(self, key, v):
        with M:
            if key == "isExecuting":
                self.ivar_executing = v
            else:
                self.ivar_finished = v
            emit({"set": {"_1": key, "_2": v, "op": self.n}})

    def finished(self):
        """Observer of isFinished becoming YES (holds M): release dependents, leave the
        queue, schedule the completion block, wake the waiters."""
        if self.delivered:
            return
        self.delivered = True
        for d in list(self.dependents):
            if self in d.unfinished:
                becomes_ready = len(d.unfinished) == 1 and not d.value("isReady")
                if becomes_ready:
                    d.will_change("isReady")
                d.unfinished.discard(self)
                if becomes_ready:
                    d.did_change("isReady")
        q = self.queue
        if q is not None:
            q.leave(self)
        if self.completion is not None and not self.completion_dispatched:
            self.completion_dispatched = True
            body = self.completion
            self.model.detach("completion %d" % self.n, lambda: self.run_completion(body))
        FINISHED.notify_all()

    def run_completion(self, body):
        TL.priority = 0.5
        emit({"completionBegan": {"op": self.n, "threadPriority": jnum(thread_priority())}})
        self.model.routine(self, body)
        emit({"completionEnded": {"op": self.n}})

    # start --------------------------------------------------------------------------------

    def start(self, by, super_start=False):
        if super_start:
            call = {"superStart": {"_0": self.n}}
        else:
            call = {"start": {"_0": self.n, "by": by}}
        with M:
            action = self.start_begin(call, super_start)
        self.start_run(call, action)

    def start_begin(self, call, super_start=False):
        """Logs the call and makes the default start's checks and its move to executing in
        one step (holds M). Returns what is left to do outside the lock."""
        emit({"call": {"_0": call}})
        if self.spec.overrides_start and not super_start:
            self.start_accepted = True
            return "program"
        try:
            if self.value("isFinished"):
                raise Misuse("alreadyFinished", "operation %d is already finished" % self.n)
            if self.value("isExecuting") or self.state == "executing":
                raise Misuse("alreadyExecuting", "operation %d is already executing" % self.n)
            if not self.value("isReady"):
                raise Misuse("notReady", "operation %d is not ready: a dependency has not "
                                         "finished" % self.n)
        except Misuse as e:
            emit({"threw": {"_0": call, "_1": e.kind, "_2": e.message}})
            return None
        self.start_accepted = True
        if self.cancelled and BUG != "start-cancelled":
            self.will_change("isFinished")
            self.state = "finished"
            self.did_change("isFinished")
            emit({"returned": {"_0": call}})
            return None
        self.will_change("isExecuting")
        self.state = "executing"
        self.did_change("isExecuting")
        return "main"

    def start_run(self, call, action):
        if action is None:
            return
        if action == "program":
            self.model.routine(self, self.spec.start_steps)
            emit({"returned": {"_0": call}})
            return
        saved = thread_priority()
        TL.priority = self.thread_priority
        try:
            self.main()
        finally:
            TL.priority = saved
        with M:
            self.will_change("isFinished")
            self.will_change("isExecuting")
            self.state = "finished"
            self.did_change("isExecuting")
            self.did_change("isFinished")
            emit({"returned": {"_0": call}})

    def main(self):
        emit({"mainBegan": {"op": self.n, "threadPriority": jnum(thread_priority())}})
        if self.kind == "block":
            self.run_blocks()
        else:
            self.model.routine(self, self.spec.body)
            if self.kind == "invocation":
                with M:
                    self.has_result = True
        emit({"mainEnded": {"op": self.n}})

    def run_blocks(self):
        with M:
            blocks = list(self.blocks)
        threads = []
        for b in range(1, len(blocks)):
            t = threading.Thread(target=guarded(lambda b=b: self.run_block(b, blocks[b])),
                                 name="block %d.%d" % (self.n, b), daemon=True)
            t.start()
            threads.append(t)
        self.run_block(0, blocks[0])
        for t in threads:
            t.join()

    def run_block(self, b, steps):
        emit({"blockBegan": {"block": b, "op": self.n}})
        self.model.routine(self, steps)
        emit({"blockEnded": {"block": b, "op": self.n}})

    # the other calls (each called inside api(), holding M) ----------------------------------

    def cancel_now(self):
        if self.value("isFinished") or self.cancelled:
            return
        ready_changes = not self.value("isReady")
        if ready_changes:
            self.will_change("isReady")
        self.will_change("isCancelled")
        self.cancelled = True
        self.did_change("isCancelled")
        if ready_changes:
            self.did_change("isReady")

    def cancel(self):
        api({"cancel": {"_0": self.n}}, self.cancel_now)

    def depends_on(self, other):
        """Whether self depends, directly or not, on other."""
        seen, todo = set(), [self]
        while todo:
            o = todo.pop()
            if o is other:
                return True
            if o.n in seen:
                continue
            seen.add(o.n)
            todo.extend(o.deps)
        return False

    def add_dependency(self, on):
        if on is self:
            raise Misuse("selfDependency", "operation %d cannot depend on itself" % self.n)
        if on in self.deps:
            raise Misuse("duplicateDependency", "operation %d already depends on %d"
                         % (self.n, on.n))
        if on.depends_on(self):
            raise Misuse("dependencyCycle", "a dependency of %d on %d would close a cycle"
                         % (self.n, on.n))
        becomes_unready = (not on.delivered and self.value("isReady") and not self.cancelled
                           and not self.value("isExecuting") and not self.value("isFinished"))
        if becomes_unready:
            self.will_change("isReady")
        self.will_change("dependencies")
        self.deps.append(on)
        on.dependents.append(self)
        if not on.delivered:
            self.unfinished.add(on)
        self.did_change("dependencies")
        if becomes_unready:
            self.did_change("isReady")

    def remove_dependency(self, on):
        if on not in self.deps:
            return
        becomes_ready = not self.value("isReady") and self.unfinished == {on}
        if becomes_ready:
            self.will_change("isReady")
        self.will_change("dependencies")
        self.deps.remove(on)
        on.dependents.remove(self)
        self.unfinished.discard(on)
        self.did_change("dependencies")
        if becomes_ready:
            self.did_change("isReady")

    def set_completion(self, steps):
        if self.value("isExecuting") or self.value("isFinished"):
            raise Misuse("completionBlockLate", "operation %d is executing or finished; its "
                                                "completion block can no longer be set" % self.n)
        self.will_change("completionBlock")
        self.completion = steps
        self.did_change("completionBlock")

    def add_block(self, steps):
        if self.value("isExecuting") or self.value("isFinished") or self.state != "idle":
            raise Misuse("executionBlockLate", "block operation %d has started; it takes no "
                                               "more blocks" % self.n)
        self.blocks.append(steps)

    def set_priority(self, raw):
        self.will_change("queuePriority")
        self.priority = raw if BUG == "raw-priority" else normalise_priority(raw)
        self.did_change("queuePriority")

    def set_thread_priority(self, p):
        self.thread_priority = min(1.0, max(0.0, p))

    def result(self):
        if self.cancelled:
            raise Misuse("invocationCancelled", "invocation operation %d was cancelled"
                         % self.n)
        if self.has_result:
            emit({"invocationResult": {"op": self.n}})


class Queue:
    def __init__(self, model, n):
        self.model = model
        self.n = n
        self.width = -1                 # -1: no limit of its own
        self.suspended = False
        self.ops = []                   # in the queue: added, not yet finished
        self.added = []                 # every operation ever added, in order
        self.running = set()            # started by this queue, not yet finished
        self.pending = 0                # workers told to pick, that have not picked yet
        self.idle = 0
        self.tickets = 0
        self.workers = 0
        self.closed = False             # the case is over: idle workers leave
        self.cond = threading.Condition(M)

    def candidates(self):
        return [o for o in self.ops if not o.start_accepted and o.value("isReady")]

    def pick(self):
        c = self.candidates()
        if not c:
            return None
        if BUG == "ignore-priorities":
            return c[0]
        best = c[0]
        for o in c[1:]:
            if o.priority > best.priority:
                best = o
        return best

    def pump(self, adding=False):
        """Holds M. Wakes (or makes) a worker for each ready operation a free slot can take."""
        if self.width == 0:
            return
        if self.suspended and not (adding and BUG == "add-ignores-suspension"):
            return
        while True:
            if self.width > 0 and len(self.running) + self.pending >= self.width:
                return
            if len(self.candidates()) <= self.pending:
                return
            self.pending += 1
            if self.idle > 0:
                self.idle -= 1
                self.tickets += 1
                self.cond.notify()
            else:
                self.workers += 1
                t = threading.Thread(target=guarded(self.work),
                                     name="pyopq-%d.%d" % (self.n, self.workers), daemon=True)
                t.start()

    def work(self):
        TRACE.local.queue = self.n
        M.acquire()
        try:
            ticket = True
            while True:
                if not ticket:
                    self.idle += 1
                    while self.tickets == 0 and not self.closed:
                        self.cond.wait()
                    if self.closed:
                        return
                    self.tickets -= 1
                ticket = False
                self.pending -= 1
                if self.width == 0 or (self.suspended and BUG != "add-ignores-suspension"):
                    continue
                op = self.pick()
                if op is None:
                    continue
                self.running.add(op)
                call = {"start": {"_0": op.n, "by": "queue"}}
                action = op.start_begin(call)
                M.release()
                try:
                    op.start_run(call, action)
                finally:
                    M.acquire()
        finally:
            M.release()

    def leave(self, op):
        """Holds M: a finished operation leaves its queue and frees its slot."""
        if op in self.ops:
            self.ops.remove(op)
        self.running.discard(op)
        self.pump()
        FINISHED.notify_all()

    def add(self, ops):
        seen = set()
        for op in ops:
            if op.queue is not None and op in op.queue.ops or op.n in seen:
                raise Misuse("alreadyInQueue", "operation %d is already in a queue" % op.n)
            if op.value("isExecuting") or op.value("isFinished") or op.start_accepted:
                raise Misuse("executingOrFinished", "operation %d is executing or finished"
                             % op.n)
            seen.add(op.n)
        for op in ops:
            op.queue = self
            self.ops.append(op)
            self.added.append(op)
            op.get("isReady")
        self.pump(adding=True)

    def set_suspended(self, s):
        self.suspended = s
        self.pump()

    def set_width(self, n):
        self.width = n
        self.pump()

    def cancel_all(self):
        for op in list(self.ops):
            op.cancel()


# ----------------------------------------------------------------------------------------
# The driving thread


class Driver:
    def __init__(self, scenario, unit_us, patience=1, session=False):
        self.sc = scenario
        self.session = session        # protocol 3: say next when the case leaves nothing behind
        self.over = False             # the case ended and left nothing: the watchdog leaves
        self.model = Model(scenario, unit_us, patience)
        units = scenario.longest_silent_units()
        silent = units * unit_us / 1e6
        self.trigger_silence = max(4 * silent, 0.25) * patience
        self.stall = max(8 * silent, 0.5) * patience
        self.current = None           # the driver call in progress, for the watchdog
        watchdog = threading.Thread(target=self.watch, name="watchdog", daemon=True)
        watchdog.start()

    def watch(self):
        # A driver call stuck for the stall window ends the trace with hang.
        while not self.over:
            time.sleep(0.020)
            what = self.current
            if what is None:
                continue
            quiet = CLOCK.now() - TRACE.last_active
            if quiet >= self.stall:
                if TRACE.last({"hang": {"_0": "%s never returned; nothing happened for %.2f s"
                                        % (what, quiet)}}):
                    OUT.flush()
                    os._exit(0)

    def run(self):
        m = self.model
        emit(None)      # thread 0's threadStarted, the trace's first event
        for q, (width, suspended) in enumerate(self.sc.queues):
            queue = m.queues[q]
            self.current = "the setup of queue %d" % q
            if width != -1:
                api({"setMaxConcurrent": {"_1": width, "queue": q}},
                    lambda: queue.set_width(width))
            if suspended:
                api({"setSuspended": {"_1": True, "queue": q}},
                    lambda: queue.set_suspended(True))
        for n, spec in enumerate(self.sc.ops):
            op = m.ops[n]
            self.current = "the setup of operation %d" % n
            if spec.queue_priority is not None:
                api({"setQueuePriority": {"_0": n, "_1": spec.queue_priority}},
                    lambda: op.set_priority(spec.queue_priority))
            if spec.thread_priority is not None:
                api({"setThreadPriority": {"_0": n, "_1": jnum(spec.thread_priority)}},
                    lambda: op.set_thread_priority(spec.thread_priority))
            if spec.completion is not None:
                api({"setCompletionBlock": {"_0": n}}, lambda: op.set_completion(spec.completion))
        for a, b in self.sc.deps:
            self.current = "the dependency of operation %d on %d" % (a, b)
            api({"addDependency": {"_0": a, "on": b}},
                lambda: m.ops[a].add_dependency(m.ops[b]))
        self.current = None
        for i, (action, trigger) in enumerate(self.sc.steps):
            if trigger is not None and not self.wait_for(trigger):
                emit({"triggerMissed": {"_0": i}})
            emit({"stepIssued": {"_0": i}})
            self.current = "driver step %d (%s)" % (i, describe(action))
            self.act(action)
            self.current = None
            emit({"stepDone": {"_0": i}})
        return self.drain()

    def wait_for(self, trigger):
        kind, n = trigger[0], trigger[1]
        began = CLOCK.now()
        t = TRACE
        with t.lock:
            while True:
                if kind == "started" and n in t.started:
                    return True
                if kind == "mainBegan" and n in t.main_began:
                    return True
                if kind == "blockBegan" and (n, trigger[2]) in t.block_began:
                    return True
                if n in t.finished:
                    return kind == "finished"
                now = CLOCK.now()
                if now - began >= 1.0 or now - t.last_active >= self.trigger_silence:
                    return False
                t.cond.wait(0.005)

    def act(self, a):
        m = self.model
        k = a[0]
        if k == "add":
            api({"addOperation": {"_0": a[1], "queue": a[2]}},
                lambda: m.queues[a[2]].add([m.ops[a[1]]]))
        elif k == "addBatch":
            ops = [m.ops[o] for o in a[1]]
            call = {"addOperations": {"_0": a[1], "queue": a[2], "wait": a[3]}}
            with M:
                emit({"call": {"_0": call}})
                try:
                    m.queues[a[2]].add(ops)
                except Misuse as e:
                    emit({"threw": {"_0": call, "_1": e.kind, "_2": e.message}})
                    return
                if a[3]:
                    while not all(o.delivered for o in ops):
                        FINISHED.wait(0.05)
                emit({"returned": {"_0": call}})
            if a[3]:
                for o in ops:
                    o.get("isFinished")
        elif k == "start":
            m.ops[a[1]].start("driver")
        elif k == "perform":
            m.routine(m.ops[a[1]], a[2])
        elif k == "cancel":
            m.ops[a[1]].cancel()
        elif k == "cancelAll":
            api({"cancelAll": {"queue": a[1]}}, m.queues[a[1]].cancel_all)
        elif k in ("suspend", "resume"):
            api({"setSuspended": {"_1": k == "suspend", "queue": a[1]}},
                lambda: m.queues[a[1]].set_suspended(k == "suspend"))
        elif k == "setMaxConcurrent":
            api({"setMaxConcurrent": {"_1": a[2], "queue": a[1]}},
                lambda: m.queues[a[1]].set_width(a[2]))
        elif k == "addDependency":
            api({"addDependency": {"_0": a[1], "on": a[2]}},
                lambda: m.ops[a[1]].add_dependency(m.ops[a[2]]))
        elif k == "removeDependency":
            api({"removeDependency": {"_0": a[1], "on": a[2]}},
                lambda: m.ops[a[1]].remove_dependency(m.ops[a[2]]))
        elif k == "waitUntilFinished":
            op = m.ops[a[1]]
            call = {"waitUntilFinished": {"_0": a[1]}}
            with M:
                emit({"call": {"_0": call}})
                while not op.delivered:
                    FINISHED.wait(0.05)
                emit({"returned": {"_0": call}})
            op.get("isFinished")
        elif k == "waitUntilAllFinished":
            q = m.queues[a[1]]
            call = {"waitUntilAllFinished": {"queue": a[1]}}
            with M:
                emit({"call": {"_0": call}})
                while q.ops:
                    FINISHED.wait(0.05)
                emit({"returned": {"_0": call}})
                emit({"operationCount": {"_1": len(q.ops), "queue": a[1]}})
                added = list(q.added)
            for o in added:
                o.get("isFinished")
        elif k == "setCompletionBlock":
            api({"setCompletionBlock": {"_0": a[1]}}, lambda: m.ops[a[1]].set_completion(a[2]))
        elif k == "addExecutionBlock":
            api({"addExecutionBlock": {"_0": a[1]}}, lambda: m.ops[a[1]].add_block(a[2]))
        elif k == "setQueuePriority":
            api({"setQueuePriority": {"_0": a[1], "_1": a[2]}},
                lambda: m.ops[a[1]].set_priority(a[2]))
        elif k == "setThreadPriority":
            api({"setThreadPriority": {"_0": a[1], "_1": jnum(a[2])}},
                lambda: m.ops[a[1]].set_thread_priority(a[2]))
        elif k == "read":
            m.ops[a[2]].get(a[1])
        elif k == "readOperationCount":
            with M:
                emit({"operationCount": {"_1": len(m.queues[a[1]].ops), "queue": a[1]}})
        elif k == "result":
            api({"result": {"_0": a[1]}}, m.ops[a[1]].result)
        else:
            raise AssertionError("action %r" % (a,))

    def pending(self):
        with M:
            busy = [q for q in self.model.queues if q.ops and not q.suspended and q.width != 0]
            return busy, self.model.inflight

    def drain(self):
        began = CLOCK.now()
        while True:
            busy, inflight = self.pending()
            now = CLOCK.now()
            if (not busy and not inflight) or now - began >= 2.0 \
                    or now - TRACE.last_active >= self.stall:
                break
            time.sleep(0.002)
        began = CLOCK.now()
        while CLOCK.now() - TRACE.last_active < 0.030 and CLOCK.now() - began < 0.5:
            time.sleep(0.002)
        with M:
            busy, _ = self.pending()
            if busy:
                what = "; ".join("queue %d still holds %d operation%s"
                                 % (q.n, len(q.ops), "" if len(q.ops) == 1 else "s") for q in busy)
                TRACE.last({"hang": {"_0": what}}, thread=0)
                return False
            # Holding M, nothing of the case can start: the driving thread is this one.
            next_case = self.session and self.left_nothing()
            if not TRACE.last({"end": {}}, thread=0, next_case=next_case) or not next_case:
                return False
            self.over = True
            for q in self.model.queues:
                q.closed = True
                q.cond.notify_all()
            return True

    def left_nothing(self):
        """Holds M. Whether the case left nothing behind (Specs/driver-protocol.md, "Sessions"):
        no queue holds an operation, no operation executes, and no code of the case runs on
        any thread: every queue's workers wait idle, no completion block or spawned thread
        runs. Only then may the next case take this process."""
        m = self.model
        if m.inflight:
            return False
        for q in m.queues:
            if q.ops or q.running or q.pending or q.tickets or q.idle != q.workers:
                return False
        return not any(o.value("isExecuting") for o in m.ops)


def describe(a):
    k = a[0]
    if k in ("perform", "setCompletionBlock", "addExecutionBlock"):
        return "%s(op: %d)" % (k, a[1])
    if k == "addBatch":
        return "addBatch(ops: %s, queue: %d, wait: %s)" % (a[1], a[2], a[3])
    return "%s(%s)" % (k, ", ".join(str(x) for x in a[1:]))


# ----------------------------------------------------------------------------------------


def main():
    global BUG, CLOCK, PARENT
    PARENT = os.getppid()
    args = sys.argv[1:]
    bug_error = None
    while args:
        a = args.pop(0)
        if a == "--bug" and args:
            BUG = args.pop(0)
            if BUG not in BUGS:
                bug_error = "unknown bug '%s' (known: %s)" % (BUG, ", ".join(BUGS))
        else:
            bug_error = "unknown argument '%s' (usage: driver.py [--bug NAME])" % a
    CLOCK = Clock()
    threading.Thread(target=watch_parent, name="parent watch", daemon=True).start()
    first = True
    while True:
        line = sys.stdin.readline()
        if not line and not first:
            os._exit(0)          # the end of standard input between cases: the session is over
        if bug_error:
            refuse(bug_error)
        if not serve(line):
            OUT.flush()
            os._exit(0)
        first = False


def watch_parent():
    # The harness is watched for the whole process, between cases too: when os.getppid() is no
    # longer PARENT, the harness died (kill -9, a crash) and this process was re-parented to init
    # or a subreaper. No one is left to read the trace, so the driver leaves at once, without a
    # word. The end of standard input cannot tell in time: a driver reads it only between cases.
    while True:
        time.sleep(0.020)
        if os.getppid() != PARENT:
            os._exit(3)


def serve(line):
    """Runs one case from its request line; whether this process takes another."""
    global TRACE
    if not line.strip():
        refuse("the request is an empty line")
    try:
        req = json.loads(line)
    except ValueError:
        refuse("the request is not JSON")
    if not isinstance(req, dict):
        refuse("the request is not a JSON object")
    if "scenario" not in req or req["scenario"] is None:
        refuse("the request has no scenario")
    proto = req.get("protocol")
    if isinstance(proto, bool) or not isinstance(proto, int):
        refuse("the request has no protocol version")
    if proto not in PROTOCOLS:
        refuse("protocol %d requested; this driver speaks 3 (and 2)" % proto)
    impl = req.get("impl")
    if impl is not None and impl != NAME:
        refuse("this driver runs %s, not '%s'" % (NAME, impl))
    unit = req.get("unitMicroseconds", 1000)
    if isinstance(unit, bool) or not isinstance(unit, int) or not 1 <= unit <= 10000000:
        refuse("unitMicroseconds is not an integer in 1...10000000")
    patience = req.get("patience", 1)
    if isinstance(patience, bool) or not isinstance(patience, int) or not 1 <= patience <= 16:
        refuse("patience is not an integer in 1...16")
    try:
        scenario = Scenario(req["scenario"])
    except Invalid as e:
        refuse(str(e))
    except RecursionError:
        refuse("the scenario is nested too deeply to read")
    write_line({"hello": {"capabilities": CAPABILITIES, "impl": NAME, "protocol": proto}})
    # Each case afresh: its own seq and thread numbers (a new trace), queues and operations.
    TRACE = Trace(CLOCK)
    try:
        return Driver(scenario, unit, patience, session=proto == 3).run()
    except BaseException:
        traceback.print_exc()
        sys.stderr.write("Fatal error: the driver failed on its driving thread\n")
        sys.stderr.flush()
        os._exit(70)


if __name__ == "__main__":
    main()
