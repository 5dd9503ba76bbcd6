import nox

nox.options.sessions = ["lint", "tests"]


@nox.session(python=False)
def lint(session):
    session.run("flake8", "--exit-zero", "--max-line-length", "79", "invoice")


@nox.session(python=False)
def tests(session):
    session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_split.py")
