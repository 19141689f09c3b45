/// The text of `--help`: what each command is for, with examples to paste.
enum Help {
    static let overview = """
    opconform: checks an implementation of the NSOperation / NSOperationQueue model against the
    rules of its documents, with evidence you can replay from a seed.

    USAGE
      opconform <command> [options]

    COMMANDS
      run        Generate cases from a seed, run them on an implementation, check every rule,
                 shrink each broken rule's first case and write it with a line to replay it.
      replay     Re-run one case (a finding file, a scenario file, or --seed S) and print its
                 trace and verdict; --trace FILE stores the trace (Specs/trace-format.md).
      check FILE Judge a stored trace file again, offline, under any profile: nothing is run.
      gate       A run judged against a file of known, explained divergences: passes when every
                 failure is expected, fails on any new one (for CI).
      merge DIR...  The shards of one run (--shard I/N, on several machines) joined into one
                 verdict and one set of reports; with --expectations, a gate's verdict.
      matrix     The same cases on several implementations: rules down, implementations across.
      bench      Throughput and scale figures, measured in one run.
      faults     The reference engine's injectable bugs, to prove the harness finds bugs.
      flaws      The catalog of concurrent-subclass mistakes the generator can write
                 (--flaw-rate R --flaws LIST), each with its duty and the rules that catch it.
      export FINDING  A finding as a standalone reproducer for its implementation's maintainers:
                 a Swift Testing or XCTest test for Foundation, an Objective-C program for GNUstep.
      rules      The rule catalog: ids, statements, citations, strengths. (--json, --markdown)
      samples    Run the documents' own sample operations through every checker under many
                 schedule seeds on the reference engine, and report what they break.
      reach      Which paths the cases of a run take: entry point × the operation's state × its
                 kind, how many cases reached each; exit 1 when a required cell is empty.
      sweep FILE One scenario file (yours, a finding's, a sample) under many schedule seeds,
                 every rule checked on every run, on any implementation.
      convert    Rewrite scenario files of format 1 in format 2 and findings of format 1 to 3
                 in format 4, in place; --check lists files not in the newest format (exit 1).
      driver-check PATH  Test a driver you wrote against the driver protocol, one check per line.
      driver     The Foundation driver itself: reads requests on standard input and writes
                 traces (Specs/driver-protocol.md); what --impl foundation starts.
      help CMD   Help for one command.
      --version  The harness's release and the formats it writes (CHANGELOG.md).

    IMPLEMENTATIONS
      reference    the deterministic reference engine (in process; --fault injects bugs)
      foundation   the toolchain's Operation/OperationQueue, each case in a child process
      gnustep      GNUstep Base's NSOperation/NSOperationQueue through an Objective-C driver
                   (Drivers/gnustep/, built on first use; needs: apt-get install gobjc
                   libgnustep-base-dev), each case in a child process; real KVO and exceptions.
                   A copy of opconform outside the checkout uses the opconform-gnustep-driver
                   beside it, or the one OPCONFORM_GNUSTEP_DRIVER names
      exec:PATH    YOUR driver: any program, in any language, that speaks the driver protocol
                   (Specs/driver-protocol.md), started with its --driver-arg
                   arguments; its name and capabilities come from its hello. PATH is relative
                   to this folder, or looked up on PATH when it has no slash.

    DRIVER LIMITS (every command that runs an implementation in a child process)
      --timeout S         kill a driver silent for S seconds once it has started (default 5)
      --case-deadline S   kill a case that runs longer than S seconds, however much it writes
                          (default 60): its hang names what the driver kept doing
      --unit-us N         microseconds per unit of 'work' in the request (default 1000); raise it
                          for a slow runtime (an interpreter, a debug build)
      --max-events N      kill a case whose driver writes more than N events (default 1000000):
                          its hang says the driver ran away. Output is also capped at 512 MB a
                          case and 1 MB a line. The timeouts count the driver's active time: a
                          driver stopped by a signal (SIGSTOP, a debugger) is not timed meanwhile.
      --cases-per-driver N
                          a driver of protocol 3 serves up to N cases in one process (default 100)
                          before a fresh one is started; a case that may leave something behind
                          ends its process anyway. 1: a process for every case. Drivers of
                          protocol 2 always get one per case (Specs/driver-protocol.md, "Drivers of protocol 2")
      --noise L           timing noise, 0 to 3 (default 0): the request asks the driver for short
                          random delays and yields at its instrumented points (before and after
                          logged calls, getters, state stores, block starts), drawn per thread
                          from the schedule seed, so rare interleavings come up more often. The
                          built-in drivers make it; replay lines carry it. The reference engine
                          ignores it: its own scheduler chooses every interleaving
                          (Specs/driver-protocol.md, Timing noise)
      --sanitize S        thread or address: the driver (--impl exec:PATH) was built with that
                          sanitizer (swift build -Xswiftc -sanitize=thread); it is checked to be,
                          stopped at the sanitizer's first report, and the report is a finding,
                          DATA-RACE or MEMORY-ERROR (Specs/sanitizers.md)

    REPLAY LINES
      Printed replay lines start opconform as this run was started: 'opconform' when PATH finds
      it, else its absolute path, so they run from any folder. To put it on PATH:
        swift build -c release && cp .build/release/opconform /usr/local/bin/
      and, for --impl gnustep from there, its driver beside it (once it is built):
        cp .build/gnustep-driver/opconform-gnustep-driver /usr/local/bin/

    VERDICTS
      A broken rule that the documents state as a must (strength "documented must"), a crash
      and a hang FAIL. A broken documented example (a listing's order), documented advice or
      observed-only rule WARNs: it is reported, with its strength, everywhere (console, JSON,
      JUnit, Swift Testing), and fails the run only with --strict (run, gate, sweep).

    EXIT STATUS
      0 conformant (warnings allowed)   1 failures found (or warnings, with --strict)
      2 bad usage or input   3 internal error
      4 no verdict: the driver broke the protocol (DRIVER-PROTOCOL; those cases were not
        judged), or no rule was reached

    EXAMPLES
      swift run opconform run --impl reference --count 5000 --seed 1
      swift run opconform run --impl reference --fault priority-ignored --count 2000
      swift run opconform replay opconform-findings/latest/PRIORITY-ORDER-7476170335452785435-priority-ignored.json
      swift run opconform rules
      swift run opconform rules --json --rules 'KVO-*'
      swift run opconform samples --schedules 10000
      swift run opconform sweep my-scenario.json --schedules 5000
      swift run opconform replay Fixtures/samples/guide-listings-2-5-to-2-7.json --schedule-seed 8
      swift run opconform replay --seed 7 --impl foundation --trace t.json && swift run opconform check t.json
      opconform run --impl exec:./my-driver --count 200
      opconform run --impl exec:python3 --driver-arg driver.py --unit-us 5000
    """

    static let rules = """
    opconform rules [--json | --markdown | --entry-points | --coverage [--markdown]] [--rules GLOB]

    Prints the catalog. Every rule has a stable id FAMILY-NAME, one sentence, its citations into
    the five seed documents, a strength (documented must / documented example / documented advice /
    observed only), what it needs to be observed (kvo, thrownErrors, threadIdentity, ...), and its
    profile variants where the documents disagree.

      --json        an array of {id, family, statement, citations, strength, needs, profiles, variants}
      --markdown    the text of Specs/rules.md
      --entry-points  which rules read each entry point of the API (addOperation:, start,
                    cancelAllOperations, ...), measured on generated cases of the reference
                    engine: the table of Specs/api-surface.md, "Entry points and the rules"
      --coverage    how the catalog accounts for every normative statement of the documents
                    (stated by a rule, listed as not a rule with the reason, or a duty no rule
                    states yet); with --markdown, the text of Specs/coverage.md
      --rules GLOB  only ids matching GLOB, where * matches anything (e.g. 'START-*', '*-THROWS')
    """

    static let samples = """
    opconform samples [--schedules N] [--seed S] [--profile P] [--write DIR]

    Runs each sample operation of the documents (the guide's Listings 2-3 to 2-8, the English,
    Chinese and Russian articles' subclasses) on the reference engine under N schedule seeds
    (S, S+1, ...; default 1000 from 1) and prints, per sample, every rule it breaks, how often,
    and the first schedule seed that shows it, with the witnessing events.

      --profile P   guide (default), class-reference, or gnustep
      --write DIR   write the samples' scenario JSON to DIR (this is how Fixtures/samples/ is made)

    Exit status 1 when any sample breaks a rule (several do: that is a finding about the documents).
    """

    static let sweep = """
    opconform sweep FILE [--schedules N] [--seed S] [--impl NAME] [--expectations FILE|none] [--profile P] [--rules \
    GLOB] [--strict] [--noise L]
    (NAME may be exec:PATH with --driver-arg A...; the driver limits of 'opconform --help' apply,
    --noise L among them)

    Runs one scenario (a scenario file you wrote, a finding file, a sample from Fixtures/samples/)
    under N schedule seeds (S, S+1, ...; default 1000 from 1 on the reference engine, 100 on any
    other implementation) and checks every rule on every run. Prints the endings, then each rule
    broken (FAIL for a documented must, WARN for an example, advice or observed-only rule) with
    its strength, how many schedules broke it, the first schedule seed that did, the violation
    with its witnessing events, and the replay line for that schedule. On the reference engine a
    schedule seed fixes every interleaving; on a real implementation it names the run, and the
    count says how often the scenario breaks the rule there.

      --strict   warnings fail the sweep too

    Exit status 0 when no rule failed, 1 when one did (or warned, with --strict), or a run crashed
    or hung; 2 for bad usage or input; 4 when the driver broke the protocol.

    Example (exit 1: the guide's own listings race, STATE-EXCLUSIVE under 324 of 5000 schedules):
    opconform sweep Fixtures/samples/guide-listings-2-5-to-2-7.json --schedules 5000
    """

    static let reach = """
    opconform reach [--impl NAME] [--count N] [--seed S] [--size K] [--misuse-rate R] [--reach | --no-reach] [--jobs J]
    (NAME may be exec:PATH with --driver-arg A...; the driver limits of 'opconform --help' apply)

    Runs the cases 'opconform run' would run with the same options (default 100 from seed 1) and
    judges nothing: it counts, from each trace, which paths the cases took. For every entry point
    and getter (start, cancel, add, addDependency, ..., isReady, isExecuting, ...), the state of
    the operation it targeted (pending, ready, executing, finished, cancelled before it started,
    cancelled while it ran) and the operation's kind (block, main, concurrent, subclass: your own
    class), the table says how many cases reached it. A green run says nothing of a path no case
    took; this is how to see which those are. Specs/reach.md says which cells are required and why
    the others are not (a misuse, a cell no call can reach, or one only some cases need).

    Runs on a driver that tests a subclass or a queue of its own add the reach episodes (a cancel
    of a finished operation, getters read while the task runs, a cancel as it starts, a cancelled
    operation started by hand: generator version 3), as 'run' does; --no-reach shows the table
    without them, --reach with them on any implementation.

    Exit status 0 when every required cell of the route's kinds (those in a tenth of the cases or
    more) was reached, 1 when one was not; 2 for bad usage; 130 when interrupted.

    Example:
    opconform reach --impl reference --reach --count 100
    """

    static let replay = """
    opconform replay FILE [--original] [--no-faults] [--trust-driver] [--schedule-seed S] [--impl NAME] [--profile P] \
    [--fault F] [--rules GLOB] [--strict] [--json] [--trace FILE] [--html DIR]
    opconform replay --seed S [--size K] [--misuse-rate R] [--flaw-rate R] [--flaws LIST] [--focus F] \
    [--split-misuse] [--reach] [--impl NAME] [--fault F] ...
    (NAME may be exec:PATH with --driver-arg A...; the driver limits of 'opconform --help' apply,
    --noise L among them: a replay line of a run with noise carries it)

    Re-runs one case and prints every trace event, then each violated rule with the events that
    witness it. The same case prints the same bytes on every machine.

    FILE is a finding written by 'run' (the minimised scenario with its case seed, schedule seed,
    implementation, profile and faults), or a plain scenario (Specs/scenario-format.md; schedule
    seed 1 unless given). For a finding, replay first regenerates the case from its seed and says
    whether the generator still builds the same case; if not, it warns and runs the stored one.
    A finding made with a driver named by path (exec:PATH) records it, and replay starts the same
    driver again, but only when that driver (or an interpreter's script) lies inside the current
    folder: a finding from elsewhere could name any command, so replay refuses it, quoting it,
    unless --trust-driver is given or --impl names the driver. --original runs the regenerated, unminimised case \
    instead; --no-faults runs a finding without
    the faults it was found with (to see a minimised case pass on the faithful engine).

    --seed S regenerates case seed S with the given generator options (defaults: size 8,
    misuse 10%, flaws 0%) and runs it under its own schedule seed: the line 'run' prints.
    That line also says --focus F for a case a guided run leaned (run --guide), and
    --split-misuse for a case of an implementation that traps on misuse, whose misuse case
    misuses once (Specs/generator.md); --reach for a case with the reach episodes (generator
    version 3, Specs/reach.md). A finding's replay line says both when its case had them.

      --html DIR     also write the case as an HTML page (DIR/index.html): its violations and its
                     trace as a timeline, one lane per thread, the witnesses ringed
      --trace FILE   also write the run's trace file (Specs/trace-format.md, format 2: the
                     scenario and every event), which 'opconform check FILE' judges again
      --json   print the replay report {format, profile, trace, violations} (sorted keys;
               the trace as a trace file; each violation's witnesses as event seq numbers)
    Exit status 1 when a rule is violated or the run crashed or hung (RUN-CRASH, RUN-HANG), 2 when
    the input is not valid, 4 when the driver broke the protocol (the case is not judged) or the
    case reached no rule (nothing was checked).
    """

    static let run = """
    opconform run --impl NAME [--count N] [--seed S] [--size K] [--rules GLOB] [--profile P]
                  [--fault NAME]... [--misuse-rate R] [--flaw-rate R] [--flaws LIST] [--json FILE] [--junit FILE] \
    [--html DIR]
                  [--out DIR] [--log FILE] [--jobs N] [--shard I/N] [--no-shrink] [--attempts N] [--table] [--strict] \
    [--guide]
                  [--driver-arg A]... [--timeout S] [--case-deadline S] [--unit-us N] [--noise L]
                  [--expectations FILE|none]

    Generates N cases (default 100) from run seed S (default 1). Case k has its own seed, derived
    from S and k, that rebuilds its scenario anywhere. Each case runs on the implementation and
    every rule is checked. For each broken rule, the first breaking case is shrunk to a minimal
    scenario that still breaks it, written to DIR (default: a new folder opconform-findings/<time>-seed<S>/,
    which opconform-findings/latest then points at) with its seeds,
    and printed with a line to paste.

      --impl NAME        reference, foundation or gnustep (each case in a child process);
                         --fault NAME injects a bug into reference (opconform faults);
                         exec:PATH starts YOUR driver (with --driver-arg A, repeated) per case
      --timeout S, --case-deadline S, --unit-us N, --max-events N, --cases-per-driver N, --noise L
                         a child-process case's limits and timing noise (opconform --help, DRIVER LIMITS)
      --size K           at most K operations per case (1...64, default 8)
      --misuse-rate R    percent of cases that misuse the API on purpose (default 10)
      --flaw-rate R      percent of concurrent subclasses written wrong on purpose (default 0)
      --flaws LIST       which subclass flaws, comma-separated (default: all but finishes-before-work and
                         start-skips-main; all: every one)
      --rules GLOB       check only matching rules
      --profile P        guide (default), class-reference, gnustep
      --json FILE        {impl, seed, cases, rules:[{id,hits,cases,violations,status,reason}],
                         findings:[{rule,message,caseSeed,replay,scenarioFile,operations,...}]}
      --junit FILE       one test case per rule
      --html DIR         the HTML report: DIR/index.html (every rule, filterable) and a page per
                         finding with its trace as a timeline (a lane per thread, witnesses ringed)
      --attempts N       tries per shrink candidate (nondeterministic implementations)
      --table            print hits and violations per rule
      --not-checked      list every rule not checked (not observable here, not applicable to the
                         profile, not reached) with its reason; by default one line counts them
      --guide            guided generation: after each round of 100 cases, every other case of
                         the next leans towards the parts of the API (cancelAll, suspension,
                         removeDependency, misuse, priorities, ...) that reach the rules reached
                         least so far; each such case's replay line says its --focus. The same
                         seed makes the same cases at any --jobs (Specs/generator.md)
      --no-reach         without the reach episodes a driver named by path, or one with its own
                         subclass or queue, gets by default (generator version 3: a cancel of a
                         finished operation, reads while the task runs, a cancelled operation
                         started by hand; Specs/reach.md): version 2's cases, as before them
      --strict           warnings fail the run too (broken documented examples, advice and
                         observed-only rules; by default they are reported as WARN, exit 0)
      --log FILE         one JSON line per case as soon as it is decided (default DIR/cases.jsonl):
                         a killed run keeps every case it finished, each broken one with its replay
                         line; a run that ends with no finding removes the default log (and the
                         folders it made), so a passing run leaves nothing behind
      --jobs N           cases at once (default: 16 per core for foundation and gnustep, whose
                         cases mostly wait; one per core for reference and for exec: drivers,
                         whose cost is unknown); results do not depend on it
      --shard I/N        run only cases k with k mod N = I-1, to split a run across N machines
      --expectations FILE|none
                         known divergences a violation may be excused by (Specs/expectations-format.md).
                         By default, a driver whose hello says it builds on a platform (one made with
                         OperationDriver: your queue over Foundation's operations, or your subclass on
                         Foundation's queue) gets that platform's shipped file: its divergences are
                         listed apart as 'known on foundation-linux', never as FAIL, and each excuses
                         only violations that show its cause (never your class's or queue's own).
                         none reports every violation as the tested code's

    Statuses: pass, fail (a documented must broken), warn (a documented example, advice or
    observed-only rule broken), known (broken only where a known divergence of the platform
    explains it), not-observable (the implementation cannot see what the rule
    needs), not-applicable (the rule belongs to another profile), not-reached (no case reached it).
    Exit status 0 when no rule failed (warnings allowed), 1 when one did (or a rule warned, with
    --strict), 2 for bad usage, 4 for no verdict: the
    driver broke the protocol in some case (DRIVER-PROTOCOL; those cases are not judged), or no
    rule was reached at all.
    """

    static let faults = """
    opconform faults [--json]

    Lists the bugs the reference engine can be told to have. Each is realistic and belongs to a
    rule family; the test suite proves each is caught within 2000 generated cases and shrunk to
    a small scenario. Inject with: opconform run --impl reference --fault NAME.
    """

    static let flaws = """
    opconform flaws [--json]
    opconform flaws --probe --impl NAME [--count N] [--seed S] [--size K] [--flaws LIST] [--json]
    opconform flaws --corpus [--count N] [--seed S] [--classes a,b] [--driver PATH] [--jobs N]
                    [--profile P] [--expectations FILE|none] [--json]

    Lists the mistakes the author of a concurrent subclass can make, one for each duty the
    documents give that author (004 2.5.3, 2.5.4, 2.9.3; 000 to 003): the name, what the
    subclass does wrong, where the documents put the duty, and the rules that catch it. The test
    suite proves each is caught on the reference engine. Write them into generated subclasses:

      opconform run --impl gnustep --flaw-rate 100 --flaws unlocked-state --count 200 --noise 2

    --flaw-rate R is the percent of concurrent subclasses that carry a flaw; --flaws a,b (or all,
    the default) which ones. The replay line of a finding repeats both.

    --corpus measures the harness on a corpus of asynchronous Operation base classes written in
    the styles found in the wild (StyleCorpus; the classes are the corpus-driver fixture, found
    next to this program or named by --driver PATH). Each class runs N cases (default 100, not
    shrunk) and the rules reported are sorted against its labelled defects: found (by which
    rule), missed, false alarms, and Foundation's own known divergences (--expectations, by
    default Fixtures/expectations/foundation-linux.json, whose profile is the default). Then
    precision (true reports / true reports and false alarms) and recall (visible defects found
    / visible defects). Exit 0: a measure, not a verdict.
    """

    static let driver = """
    opconform driver [--plain]

    Driver-protocol mode (Specs/driver-protocol.md): reads request lines on standard input,
    runs each on Foundation's Operation and OperationQueue in this process, and writes the trace
    as JSON lines. A request of protocol 2 is one case, then the process exits; in protocol 3 the
    process takes the next request after a case that left nothing behind (done says next: true).
    'run --impl foundation' runs it in child processes, so that a trap or a deadlock costs one
    case, not the run. A driver call that has not returned while
    nothing happened for its stall window (0.5 s, more for scenarios with long steps) ends the
    trace with a hang naming the call.

      --plain   run the same scenario without recording: no event is made or sent but the
                last (end or hang), and no quiet window is waited for at the end. What 'bench'
                compares the harness with.
    """

    static let gate = """
    opconform gate --expectations FILE [--impl NAME] [--count N] [--seed S] [--size K] [--strict] [--guide] \
    [--no-reach] [--not-checked]
                   [--trust-driver] [--no-shrink] [--json FILE] [--junit FILE] [--html DIR] [--out DIR] [--log FILE]
                   [--jobs N] [--shard I/N] [--driver-arg A]... [--timeout S] [--case-deadline S] [--unit-us N] \
    [--noise L]

    Runs like 'run' (implementation and profile from FILE unless given; a format-2 FILE may name
    its driver, {"driver": {"path": "./my-driver", "arguments": [...]}}, started as exec:PATH when it lies
    inside the current folder, else only with --trust-driver), then compares the broken
    rules, RUN-CRASH and RUN-HANG included, with FILE's expected divergences
    (Specs/expectations-format.md). Passes (exit 0) when every failure is expected; fails (exit 1)
    on any unexpected one, printed with its replay line. Expected failures the run did not show
    are reported as now passing. An unexpected broken rule that only warns (a documented example,
    advice, observed only) is reported as an unexpected warning and does not fail the gate.
    --strict lets nothing go: unexpected warnings and expected failures no longer seen fail the
    gate too. Exits 4 (no verdict), whatever
    FILE says, when the driver broke the protocol or no rule was reached: DRIVER-PROTOCOL cannot
    be an expected divergence.
    """

    static let matrix = """
    opconform matrix --impls NAME,NAME[,...] [--count N] [--seed S] [--size K] [--profile P] [--expectations FILE|none]
                     [--rules GLOB] [--markdown FILE] [--json FILE] [--html DIR] [--out DIR] [--jobs N] [--no-shrink] \
    [--noise L]

    NAME may be exec:PATH (a driver of your own; --driver-arg then needs exactly one of those).
    Known divergences apply as in 'run' (a FILE to the columns it was written for).
    Runs the same N generated cases (default 100, run seed S) on each implementation and prints
    how many rules each passes, fails, cannot observe or did not reach, then the rules whose
    status differs between them, each failure with its replay line. Findings and case logs go
    to DIR/NAME/ (default opconform-findings/NAME/).

      --markdown FILE    rules down, implementations across; each failing cell links to its
                         finding and replay lines (the README's matrix is made this way)
      --json FILE        an array of 'run --json' reports, one per implementation

    Exit status 0 when no implementation broke a rule, 1 otherwise, 2 for bad usage, 4 when a run
    gave no verdict (its driver broke the protocol, or it reached no rule).
    """

    static let bench = """
    opconform bench [--quick] [--cases N] [--real N] [--scale N,N,...] [--shapes S,...] [--steps N] [--impls NAME,...]
                    [--no-shrink] [--jobs-list N,N,...] [--jobs-cases N] [--no-detect] [--detect-seeds N]
                    [--detect-cap N] [--detect-seconds S] [--json FILE]
    opconform bench --detect [--defects NAME,...] [--detect-seed S] [--detect-cap N] [--quick] [--json FILE]

    Measures, in one run and on the same generated scenarios: the reference engine end to end
    and generation, simulation and checking alone (scenarios, operations and trace events per
    second); the real implementations (default foundation,gnustep; left out, with the reason,
    when they cannot start) on the first --real scenarios, and for foundation the same
    scenarios run plain ('driver --plain': nothing recorded) and process start alone, so the
    harness's overhead is a ratio; scale scenarios (a chain, a fan-out and a random DAG of each
    --scale size, default 1000,10000; 100000 takes about 10 seconds and 390 MB) through the
    engine and the checkers, with time and peak memory, and the five slowest checkers on the
    largest; a long scenario of --steps driver steps (default 200000; 0 leaves it out) read from
    its file's bytes, simulated and checked, each timed (all three grow linearly with the steps);
    and the time to shrink each fault's first failure. Progress goes to standard error.
    Prints a table; --json FILE writes it. --quick: 200 cases, 5 real, scale 200,800, 20000 steps.
    --shapes chain,fan-out,random-dag picks the scale shapes (all three by default); with
    --cases 1 --real 0 --no-shrink --shapes random-dag --scale 100000 the run is mostly that
    one scenario, which is what a profiler wants.
    An exec:PATH in --impls is measured like the real implementations.

    JOBS SCALING (each real implementation): the first --jobs-cases generated cases (default 64;
    --quick 16; 0 leaves the section out) run as 'gate --no-shrink' runs them (foundation and
    gnustep with their expectations files, as below; any other as 'run --no-shrink'), at each
    jobs of --jobs-list (default 1,2,4,8,16), then once more at the jobs 'run' takes when --jobs
    is left out (16 a core for foundation and gnustep). A row per run: seconds and cases/s
    (scen/s) for the cases, run and checked; xK, the speed-up over the smallest jobs (its
    seconds over this row's); and CPU per case, user plus system time: the harness's own (this
    process: reading the drivers' output, checking) and its drivers' (its child processes,
    reaped or still waiting for a case), then how the cases ended. Speed-up grows while cases
    mostly wait (work units, stall windows) and stops once the cores are busy: CPU per case
    times cases/s near the core count says the machine is full.

    TIME TO DETECT (foundation with Fixtures/expectations/foundation-linux.json, gnustep with
    gnustep.json; --no-detect leaves it out): for each seed 1..N (--detect-seeds, default 3),
    cases run as 'gate' runs them (every rule, the file's profile, default jobs, no shrinking)
    until every expected entry's rule broke in some case (RUN-CRASH, RUN-HANG included), or the
    cap: --detect-cap cases (default 2000; --quick 100) or --detect-seconds (default 60; --quick
    10). A row per seed says how many entries it saw, how many cases it ran and why it stopped.
    A row per entry gives, over the seeds: the median seconds from the run's start to the moment
    the first case that broke the rule was decided (the seconds column); the median cases run
    up to and including it (its index plus one); "seen in k of N"; and each seed's case and time.
    A seed that did not see an entry counts as later than any that did, so an entry seen in half
    the seeds or fewer has no median ('-'): not seen within the cap. It says how many cases a
    gate needs to see what it expects.

    TIME TO A FINDING (bench --detect, alone): how long a user waits from 'run' to a minimised,
    confirmed finding of each planted defect: the subclass flaws on foundation (each run's
    subclasses carry one flaw; not-observable where Linux cannot show its rules), the python
    example's --bug add-ignores-suspension, and the planted bugs of Examples/alternative-queue and
    Examples/async-operation once their check.sh has built them. Each run stops at the first case
    that breaks the defect's rule (seed --detect-seed, default 1; at most --detect-cap cases,
    default 300, --quick 100) and shrinks it. A row per defect: the cases to the first sighting,
    seconds to it and to the finding, the shrink's share, operations before and after, and how
    often the minimum replayed; then the median and the worst. --defects picks defects whose
    names contain the words given. Specs/performance.md has the figures and what changed them.

    No figure is asserted: compare ratios measured in one run.
    """

    static func topic(_ name: String) -> String? {
        switch name {
        case "rules": return rules
        case "samples": return samples
        case "sweep": return sweep
        case "reach": return reach
        case "convert": return ConvertCommand.help
        case "replay": return replay
        case "check": return CheckCommand.help
        case "run": return run
        case "faults": return faults
        case "flaws": return flaws
        case "export": return ExportCommand.help
        case "driver": return driver
        case "gate": return gate
        case "merge": return MergeCommand.help
        case "matrix": return matrix
        case "bench": return bench
        case "driver-check": return DriverCheckCommand.help
        default: return nil
        }
    }
}
