from wec.cli import main

raise SystemExit(main())
