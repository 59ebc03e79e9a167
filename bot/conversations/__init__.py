"""The conversation core: what makes a good chat bot, for every chat surface.

No surface's SDK is imported anywhere in this package (``tests/unit/test_import_rules.py``
checks it). A surface (Slack in ``bot.slack``) plugs in with four pieces:

1. Translate: its listener turns an event into an ``Inbound`` (``model``): the ``Place``
   (surface, workspace, conversation, thread, plus routing data that must survive a
   restart, such as Teams' ``serviceUrl``), message id, asker, text and delivery id.
2. Implement the ``Surface`` port (``surface``): render status lines, answers, clarify
   choices and notices into its own message type; post / update / notify one user / show
   busy; answer the conversation's kind (public / private / direct / external-shared /
   group), the asker's groups, and who is an admin.
3. Build its deps as a ``ConversationDeps`` (``deps``; Slack's ``SlackDeps`` extends it
   with its client), with a module-level ``WorkerConfig.deps_factory`` so worker
   processes can build the same (``worker``).
4. Call the core: ``turns.accept`` before the ack (None: a duplicate, drop it), then
   ``TurnRunner.start`` after it; ``votes.record_vote`` for a vote;
   ``commands.handle_command`` for an admin command. ``recovery.Maintenance`` (heartbeat,
   orphan recovery) and the ``work`` pool run beside the listeners.

The core then accepts each message exactly once, journals the turn (``store.conversations``),
runs the agent on a worker, paces the status updates (``pacing``, ``live``) and posts the
answer or an apology through the port. User-facing words live in ``texts``.
"""
