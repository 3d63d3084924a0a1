"""Play a game with command words, one per line from a script or standard input, and print
each result, then the final state (the words are in docs/commands.md)."""

from __future__ import annotations

import argparse
import json
import sys

from companion import registry


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", help=f"the game: {registry.help_list()}")
    p.add_argument("--players", help='player names in table order, e.g. "Ann,Bob,Cy"')
    p.add_argument("--seed", type=int, default=None, help="seed of the random draws (first player, dice)")
    p.add_argument("--script", help="file of command words (default: standard input)")
    p.add_argument("--journal", help="SQLite journal (default: the user data directory's games.sqlite3)")
    p.add_argument("--json", action="store_true", help="print the final state as one JSON object")
    p.add_argument("--strict", action="store_true", help="stop with exit status 3 at the first refused command")
    p.add_argument("--resume", type=int, metavar="ID", help="go on with a saved game")
    p.add_argument("--first", metavar="NAME", help="the first player the table chose (default: drawn at random)")
    for option, help_text in _game_options().items():
        p.add_argument(f"--{option}", action="store_true", help=help_text)
    p.add_argument("--list", action="store_true", help="list the saved games and exit")
    p.add_argument("--export", choices=("text", "json"), help="print the game given by --resume and exit")
    p.add_argument("--source", choices=("touch", "key", "scan", "script"), default=None,
                   help="input source recorded with each event (default: script, or key on a terminal)")


def _game_options() -> dict[str, str]:
    """The set-up options a game's own code offers (its ``table_options`` hook: name → help),
    each help led by the games that have it."""
    found: dict[str, list[tuple[str, str]]] = {}
    for game in registry.builtin_ids():
        for option, help_text in (registry.hook(game, "table_options") or {}).items():
            found.setdefault(option, []).append((game, help_text))
    return {option: "; ".join(f"{game}: {text}" for game, text in offers) for option, offers in found.items()}


def run(args: argparse.Namespace) -> int:
    from companion import paths
    from companion.cards.library import CardLibrary
    from companion.i18n import language, t
    from companion.play.session import Session
    from companion.table.engine import summary_text
    from companion.table.journal import JournalError

    lang = language()
    out = sys.stdout
    # With --json, stdout holds only the final JSON object; the running commentary goes to stderr.
    talk = sys.stderr if args.json else sys.stdout

    def say(line: str, stream=None) -> None:
        print(line, file=stream or talk, flush=True)

    path = args.journal or str(paths.data_dir() / "games.sqlite3")
    # The card library loads only if a command needs a card (a vampire named without its capacity).
    session = Session(CardLibrary(), path)
    try:
        journal = session.journal
    except JournalError as exc:
        say(t("table.cli.journal_error", error=exc.describe(lang)), sys.stderr)
        return 2
    if journal.notice is not None:  # a damaged journal was set aside: one sentence says so
        say(journal.notice_text(lang), sys.stderr)

    try:
        if args.list:
            rows = journal.games()
            if args.json:
                print(json.dumps([{**r.__dict__, "summary": summary_text(r.game, r.summary, lang)} for r in rows],
                                 ensure_ascii=False), file=out)
            elif not rows:
                say(t("table.cli.list_empty"))
            else:
                say(t("table.cli.games_head"))
                for r in rows:
                    summary = summary_text(r.game, r.summary, lang)
                    say(f"{r.id}\t{r.game}\t{', '.join(r.players)}\t{r.status}\t{r.events}\t{summary}")
            return 0

        if args.resume is not None:
            if journal.game(args.resume) is None:
                say(t("table.cli.no_game", id=args.resume, path=path), sys.stderr)
                return 2
            if args.export:
                from companion.table.export import export_json, export_text

                try:
                    if args.export == "json":
                        print(json.dumps(export_json(journal, args.resume), ensure_ascii=False, indent=1), file=out)
                    else:
                        out.write(export_text(journal, args.resume, lang))
                except JournalError as exc:  # a damaged game: said in words, never a traceback
                    say(t("table.cli.journal_error", error=exc.describe(lang)), sys.stderr)
                    return 2
                return 0
            result = session.resume(args.resume, source=args.source or "script")
        else:
            if not args.game or args.game not in registry.ids():
                say(t("table.cli.bad_game", game=args.game or "", games=registry.help_list()), sys.stderr)
                return 2
            names = [n.strip() for n in (args.players or "").split(",") if n.strip()]
            if not names:
                say(t("table.cli.no_players"), sys.stderr)
                return 2
            options = {option: True for option in _game_options() if getattr(args, option.replace("-", "_"), False)}
            result = session.new_game(args.game, names, seed=args.seed, options=options,
                                      source=args.source or "script", first=args.first)
        if not result.ok:
            for line in result.lines(lang):
                say(line, sys.stderr)
            return 2
        if args.resume is None:
            for line in result.lines(lang):
                say(line)
        game = session.game
        assert game is not None

        say(t("table.cli.journal", path=path, id=game.id), sys.stderr)
        if args.script:
            try:
                stream = open(args.script, encoding="utf-8")  # noqa: SIM115 - closed below
            except OSError:
                say(t("table.cli.script_missing", path=args.script), sys.stderr)
                return 2
        else:
            stream = sys.stdin
        source = args.source or ("key" if stream.isatty() else "script")
        if stream.isatty():
            # A person types: the card search is built while they read the table, not when they
            # first name a card (2-3 s). A script names its vampires with their capacity or waits.
            import threading

            threading.Thread(target=session.library.prepare_search, name="cards", daemon=True).start()
        status = 0
        try:
            for number, line in enumerate(stream, 1):
                result = session.apply(line, source=source)
                if result.intent.verb == "refused":  # the line could not be read: say which one
                    if result.reason and result.reason[0] == "ui.empty_command":
                        continue
                    say(t("table.cli.line", line=number, text=result.text(lang)))
                else:
                    for text in result.lines(lang):
                        say(text)
                if not result.ok and args.strict:
                    status = 3
                    break
        except KeyboardInterrupt:
            pass  # Ctrl-C, SIGTERM or SIGHUP (see cli): every change is in the journal; end as at the input's end
        finally:
            if stream is not sys.stdin:
                stream.close()

        if args.json:
            print(json.dumps({**game.to_json(), "id": game.id, "journal": path}, ensure_ascii=False), file=out)
        else:
            say(t("table.cli.final"))
            for line in game.status(lang):
                say(line)
        return status
    finally:
        session.close()

