from attnlab.peers.command import main

main()
