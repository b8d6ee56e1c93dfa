"""The `villagelab` command line: `main` composes the commands of the other modules here (by
concern: files, running, checks, bench; search, champion, report and ui in `main`). Each command
imports what it runs inside its body, so that the command line starts without the heavy
libraries (`main` says why); `exits` ends the process the same way every time."""
