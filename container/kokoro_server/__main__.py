from kokoro_server.cli import main

main()
