"""The conversation core: what makes a good chat bot, for every chat surface.

No surface's SDK is imported anywhere in this package (a test checks it). A surface (Slack
in ``bot.slack``, Teams in ``bot.teams``) plugs in with three pieces:

1. Translate: its listener turns an event into an ``Inbound`` (``model``): the ``Place``
   (surface, workspace, conversation, thread, plus routing data such as Teams'
   ``serviceUrl``), message id, asker, text, delivery id and, when the event says it, the
   conversation kind (public / private / direct / external-shared / group).
2. Implement the ``Surface`` port (``surface``): render status lines, answers, clarify
   choices and notices into its own message type, and post / update / notify / show busy.
   Access questions go through it too: the conversation's kind, the asker's groups, who is
   an admin.
3. Hand the ``Inbound`` to the core, which accepts it exactly once, journals the turn, runs
   the agent on a worker, paces the status updates and posts the answer or an apology
   through the port.

User-facing words live in ``texts`` (Chinese and English), never in a surface.

Modules: ``model`` (inbound model, access principals, KB binding), ``surface`` (the port),
``texts``. The Slack turn machinery (accept-once, journal, workers, pacing, votes, admin
commands) is being moved here from ``bot.slack``.
"""
