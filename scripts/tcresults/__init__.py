"""tcresults: the results layer of Two-Chains (scripts/tc-*), as a package.

Shared by every tool:
  schema       the tc-perf / tc-mcast CSV and meta.json: one reader, one
               number parser, rows by invocation (point, round)
  reduce       one reduction: a value divided by its own invocation's
               reference, a point's median over its rounds
  stats        the 95% interval over rounds; the Mann-Whitney U test
  gnuplot      palette and quoting for the figures
  paths        where the repository's parts are
  verdict      the gating tools' exit status, summary, JSON and JUnit XML
  gitwork      revisions built apart, in git worktrees under build/
  buildkey     the key of the deterministic counts (tc-key)

One module (or package) per tool, each behind a thin scripts/tc-* command:
  experiments  tc-experiments (the runner)
  plot         tc-plot (the paper's figures)
  claims       tc-claims (claims.md)
  compare      tc-compare (regressions against a baseline)
  ab           tc-ab (make bench-ab: two builds alternating, a rank test)
  history      tc-history (make history: counts per commit, steps, plots)
  bisect       tc-bisect (the first commit past a threshold, git bisect run)
  platforms    tc-platforms (platforms side by side)
  floor_table  tc-floor-table (bench-floor.sh's tables)
  readme       tc-readme (README.md's and docs/' blocks generated from results)
  report       tc-report (make report: static HTML pages of the results)

Python 3 standard library only (gnuplot, a program, draws the figures).
The unit tests (tests/py/, run by make check) use the standard library's
unittest; make coverage-py measures them with Debian's python3-coverage.
"""
