from __future__ import annotations

from labdeck.cli import main

raise SystemExit(main())
