from autoalign.cli import main

main()
