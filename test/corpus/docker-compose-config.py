"""Runs Debian's docker-compose 1.29 `config` command once per corpus folder, in one interpreter.

Each folder gets exactly the CLI a user runs (`docker-compose -f compose.yaml config`, compose.cli.main.main),
with its stdout and stderr captured, so the agreement test pays Python's start-up once instead of thirty times.
Usage: python3 docker-compose-config.py DIR...; prints {dir: {code, stdout, stderr}} as JSON.
"""
import contextlib
import io
import json
import logging
import os
import sys

from compose.cli.main import main

results = {}
for folder in sys.argv[1:]:
    out, err = io.StringIO(), io.StringIO()
    code = 0
    os.chdir(folder)
    sys.argv = ['docker-compose', '-f', 'compose.yaml', 'config']
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main()
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
    logging.getLogger().handlers.clear()
    results[folder] = {'code': code, 'stdout': out.getvalue(), 'stderr': err.getvalue()}
sys.stdout.write(json.dumps(results))
