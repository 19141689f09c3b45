/// The text of `--help`: what each command is for, with examples to paste.
enum Help {
    static let overview = """
    opconform: checks an implementation of the NSOperation / NSOperationQueue model against the
    rules of its documents, with evidence you can replay from a seed.

    USAGE
      opconform <command> [options]

    COMMANDS
      rules      The rule catalog: ids, statements, citations, strengths. (--json, --markdown)
      samples    Run the documents' own sample operations through every checker under many
                 schedule seeds on the reference engine, and report what they break.
      replay     Run one scenario file on the reference engine under one schedule seed; print
                 the trace and every violation.
      help CMD   Help for one command.

    PLANNED (see Specs/): run, gate, matrix, faults, bench, driver.

    EXIT STATUS
      0 conformant   1 violations found   2 bad usage or input   3 internal error

    EXAMPLES
      swift run opconform rules
      swift run opconform rules --json --rules 'KVO-*'
      swift run opconform samples --schedules 10000
      swift run opconform replay Fixtures/samples/guide-listings-2-5-to-2-7.json --schedule-seed 8
    """

    static let rules = """
    opconform rules [--json | --markdown] [--rules GLOB]

    Prints the catalog. Every rule has a stable id FAMILY-NAME, one sentence, its citations into
    the five seed documents, a strength (documented must / documented example / documented advice /
    observed only), what it needs to be observed (kvo, thrownErrors, threadIdentity, ...), and its
    profile variants where the documents disagree.

      --json        an array of {id, family, statement, citations, strength, needs, profiles, variants}
      --markdown    the text of Specs/rules.md
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

    static let replay = """
    opconform replay FILE [--schedule-seed S] [--profile P] [--rules GLOB] [--json]

    Runs the scenario in FILE (the JSON of Specs/scenario-format.md) on the reference engine under
    schedule seed S (default 1), prints every trace event and then each violated rule with the
    events that witness it. The same file and seed print the same bytes on every machine.

      --json   print {trace, violations} as JSON (sorted keys) instead
    Exit status 1 when a rule is violated, 2 when FILE is not a valid scenario.
    """

    static func topic(_ name: String) -> String? {
        switch name {
        case "rules": return rules
        case "samples": return samples
        case "replay": return replay
        default: return nil
        }
    }
}
