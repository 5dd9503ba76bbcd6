from __future__ import annotations

from labdeck.commands.cli import main

raise SystemExit(main())
