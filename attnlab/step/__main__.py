from attnlab.step.command import main

main()
