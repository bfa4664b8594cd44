"""`python -m mocksrv`: the `mocksrv` command."""

from mocksrv.launch import main

main()
