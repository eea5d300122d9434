"""evosoko's tests: a package, so that ``tests.*`` helpers win over any
``tests`` a dependency installs."""
