"""What `mocksrv serve` and MockServer run on: the HTTP server, the state file, the log writer, memory."""
