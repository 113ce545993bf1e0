"""``python -m wec`` and the app bundle's ``wec`` program: the command line."""

from wec.cli import main
from wec.game import serve_worker_process

serve_worker_process()
raise SystemExit(main())
