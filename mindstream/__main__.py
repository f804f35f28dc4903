"""`python -m mindstream`: the command line."""

from mindstream.cli import main

main()
