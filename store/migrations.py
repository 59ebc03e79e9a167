"""Ordered schema migrations with a version table, applied by an explicit ``setup()``.

Append new migrations at the end; never edit one that has shipped. Each runs in its own
transaction together with the version bump, under an advisory lock, so two processes
setting up at once apply each migration exactly once.
"""

from __future__ import annotations

import psycopg

# Advisory lock key for schema setup ("ragbot" in ASCII, truncated to bigint range).
_SETUP_LOCK = 0x7261_6762_6F74

MIGRATIONS: list[str] = [
    # 0: the version table itself is created by setup().
    "SELECT 1",
    # 1: knowledge bases, generations, documents, chunks.
    """
    CREATE EXTENSION IF NOT EXISTS vector;

    CREATE TABLE knowledge_bases (
        id bigserial PRIMARY KEY,
        name text NOT NULL UNIQUE,
        embed_model text NOT NULL,
        embed_dim integer NOT NULL,
        -- what `ragbot reindex` re-reads: [{"path", "doc_type", "acl"}]
        sources jsonb NOT NULL DEFAULT '[]',
        active_generation integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_ingest_at timestamptz
    );

    CREATE TABLE generations (
        kb_id bigint NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
        generation integer NOT NULL,
        embed_model text NOT NULL,
        embed_dim integer NOT NULL,
        state text NOT NULL CHECK (state IN ('building', 'active', 'superseded', 'failed')),
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        PRIMARY KEY (kb_id, generation)
    );

    CREATE TABLE documents (
        id bigserial PRIMARY KEY,
        kb_id bigint NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
        generation integer NOT NULL,
        doc_key text NOT NULL,
        source text NOT NULL,
        title text NOT NULL,
        doc_type text NOT NULL DEFAULT 'document',
        content_hash text NOT NULL,
        version integer NOT NULL DEFAULT 1,
        is_latest boolean NOT NULL DEFAULT true,
        archived_at timestamptz,
        acl text[] NOT NULL DEFAULT '{public}',
        metadata jsonb NOT NULL DEFAULT '{}',
        updated_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX documents_version_key ON documents (kb_id, generation, doc_key, version);
    CREATE UNIQUE INDEX documents_latest_key ON documents (kb_id, generation, doc_key)
        WHERE is_latest;

    -- Only latest versions have chunks (an archived version's chunks are deleted in the
    -- transaction that archives it). Filter columns are copied from the document so that
    -- filters and access lists apply inside the index scans, before ranking.
    CREATE TABLE chunks (
        id bigserial PRIMARY KEY,
        document_id bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        kb_id bigint NOT NULL,
        generation integer NOT NULL,
        position integer NOT NULL,
        heading_path text[] NOT NULL DEFAULT '{}',
        text text NOT NULL,
        token_count integer NOT NULL,
        tsv tsvector NOT NULL,
        -- dimension varies per KB: HNSW indexes are partial, one per dimension
        -- (see store.db.ensure_vector_index)
        embedding vector NOT NULL,
        dim integer NOT NULL,
        doc_type text NOT NULL,
        source text NOT NULL,
        acl text[] NOT NULL,
        updated_at timestamptz NOT NULL
    );
    CREATE INDEX chunks_tsv ON chunks USING gin (tsv);
    CREATE INDEX chunks_scope ON chunks (kb_id, generation);
    CREATE INDEX chunks_document ON chunks (document_id);
    """,
    # feedback: one 👍/👎 per user per answer message, with a snapshot of the turn's trace.
    """
    CREATE TABLE feedback_votes (
        channel text NOT NULL,
        message_ts text NOT NULL,
        user_id text NOT NULL,
        vote smallint NOT NULL CHECK (vote IN (-1, 1)),
        trace_id text NOT NULL,
        trace jsonb NOT NULL DEFAULT '{}',
        kb text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (channel, message_ts, user_id)
    );
    CREATE INDEX feedback_votes_updated ON feedback_votes (updated_at);
    CREATE INDEX feedback_votes_trace ON feedback_votes (trace_id);
    """,
    # slack: event dedup, turn journal (restart recovery), worker heartbeats, answered
    # threads, bot message -> trace (see store/slack_state.py).
    """
    CREATE TABLE slack_events (
        event_id text PRIMARY KEY,
        received_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX slack_events_received ON slack_events (received_at);

    CREATE TABLE slack_turns (
        id bigserial PRIMARY KEY,
        team text NOT NULL,
        channel text NOT NULL,
        message_ts text NOT NULL,
        thread_ts text NOT NULL,
        thread_key text NOT NULL,
        user_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('ask', 'resume', 'help')),
        text text NOT NULL,
        truncated boolean NOT NULL DEFAULT false,
        kb text NOT NULL,
        event_id text,
        state text NOT NULL DEFAULT 'accepted'
            CHECK (state IN ('accepted', 'running', 'done', 'failed')),
        owner text NOT NULL,
        attempts integer NOT NULL DEFAULT 1,
        status_ts text,
        trace_id text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (channel, message_ts)
    );
    CREATE INDEX slack_turns_open ON slack_turns (owner) WHERE state IN ('accepted', 'running');

    CREATE TABLE slack_workers (
        instance_id text PRIMARY KEY,
        started_at timestamptz NOT NULL DEFAULT now(),
        heartbeat_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE slack_threads (
        channel text NOT NULL,
        thread_ts text NOT NULL,
        team text NOT NULL,
        thread_key text NOT NULL,
        kb text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_turn_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (channel, thread_ts)
    );

    CREATE TABLE slack_bot_messages (
        channel text NOT NULL,
        ts text NOT NULL,
        trace_id text NOT NULL,
        thread_key text NOT NULL,
        turn_id bigint REFERENCES slack_turns(id) ON DELETE SET NULL,
        kb text,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (channel, ts)
    );
    CREATE INDEX slack_bot_messages_trace ON slack_bot_messages (trace_id);
    """,
    # agent traces: the full path of each answered turn (see store/traces.py).
    """
    CREATE TABLE agent_traces (
        trace_id text PRIMARY KEY,
        thread_id text NOT NULL,
        kb text,
        user_id text,
        question text,
        rewritten_query text,
        route text,
        rounds integer,
        refused boolean,
        answer text,
        latency_ms double precision,
        record jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX agent_traces_thread ON agent_traces (thread_id, created_at);
    """,
    # chunk count per generation, for keyword idf: counting a KB's chunks on every search
    # grew with the KB (about 10 ms at 100k chunks). Kept by statement-level triggers, so
    # every writer (ingest, prune, reindex, cascades) maintains it without knowing.
    """
    ALTER TABLE generations ADD COLUMN chunk_count bigint NOT NULL DEFAULT 0;
    UPDATE generations g SET chunk_count = s.n
        FROM (SELECT kb_id, generation, count(*) AS n FROM chunks GROUP BY 1, 2) s
        WHERE g.kb_id = s.kb_id AND g.generation = s.generation;

    CREATE FUNCTION chunks_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE generations g SET chunk_count = g.chunk_count + s.n
            FROM (SELECT kb_id, generation, count(*) AS n FROM new_rows GROUP BY 1, 2) s
            WHERE g.kb_id = s.kb_id AND g.generation = s.generation;
        RETURN NULL;
    END $$;
    CREATE FUNCTION chunks_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE generations g SET chunk_count = greatest(g.chunk_count - s.n, 0)
            FROM (SELECT kb_id, generation, count(*) AS n FROM old_rows GROUP BY 1, 2) s
            WHERE g.kb_id = s.kb_id AND g.generation = s.generation;
        RETURN NULL;
    END $$;
    CREATE TRIGGER chunks_count_insert AFTER INSERT ON chunks
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
        EXECUTE FUNCTION chunks_count_insert();
    CREATE TRIGGER chunks_count_delete AFTER DELETE ON chunks
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
        EXECUTE FUNCTION chunks_count_delete();
    """,
    # feedback: each reaction's latest state by Slack's event time, so a redelivered
    # reaction_added older than its removal (or events out of order) cannot restore a vote.
    # Existing votes become present reactions as of their last update.
    """
    CREATE TABLE feedback_reactions (
        channel text NOT NULL,
        message_ts text NOT NULL,
        user_id text NOT NULL,
        vote smallint NOT NULL CHECK (vote IN (-1, 1)),
        present boolean NOT NULL,
        event_ts numeric NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (channel, message_ts, user_id, vote)
    );
    INSERT INTO feedback_reactions (channel, message_ts, user_id, vote, present, event_ts)
    SELECT channel, message_ts, user_id, vote, true, extract(epoch FROM updated_at)
      FROM feedback_votes;
    """,
    # retention: when a thread's checkpoints were pruned, so its next turn can say that
    # the earlier context is gone (see store/retention.py).
    """
    ALTER TABLE slack_threads ADD COLUMN context_expired_at timestamptz;
    """,
    # eval history: each `ragbot eval` run (set, code commit, settings) and its per-question
    # result lines, for `ragbot report`.
    """
    CREATE TABLE eval_runs (
        id bigserial PRIMARY KEY,
        set_name text NOT NULL,
        kb text NOT NULL,
        code_commit text,
        settings jsonb NOT NULL DEFAULT '{}',
        started_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE eval_results (
        run_id bigint NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
        position integer NOT NULL,
        question_id text NOT NULL,
        result jsonb NOT NULL,
        PRIMARY KEY (run_id, position)
    );
    """,
    # the office glossary, per KB and per glossary file (store.glossary).
    """
    CREATE TABLE glossary_terms (
        kb_id bigint NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
        source text NOT NULL,
        term text NOT NULL,
        synonyms text[] NOT NULL,
        PRIMARY KEY (kb_id, source, term)
    );
    """,
    # Spans of a chunk that instruct the reader or an assistant (store.suspicious): kept
    # with the chunk, listed by `ragbot kb status`, never quoted in answers.
    "ALTER TABLE chunks ADD COLUMN IF NOT EXISTS suspicious text[] NOT NULL DEFAULT '{}'",
    # answer cache: final answers of standalone questions per (KB content version, sorted
    # access principals, normalized question); see store/answer_cache.py. content_version
    # changes in every transaction that writes a KB's documents or chunks (ingest, access
    # change, prune, reindex) and when reindex switches generations, by triggers, so no
    # writer can forget it. The value is the writing transaction's id: unique per change,
    # which is all a cache key needs.
    """
    ALTER TABLE knowledge_bases ADD COLUMN content_version bigint NOT NULL DEFAULT 0;

    CREATE FUNCTION kb_content_changed_new() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE knowledge_bases k SET content_version = pg_current_xact_id()::text::bigint
         WHERE k.id IN (SELECT DISTINCT kb_id FROM new_rows)
           AND k.content_version <> pg_current_xact_id()::text::bigint;
        RETURN NULL;
    END $$;
    CREATE FUNCTION kb_content_changed_old() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE knowledge_bases k SET content_version = pg_current_xact_id()::text::bigint
         WHERE k.id IN (SELECT DISTINCT kb_id FROM old_rows)
           AND k.content_version <> pg_current_xact_id()::text::bigint;
        RETURN NULL;
    END $$;
    CREATE TRIGGER documents_content_insert AFTER INSERT ON documents
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
        EXECUTE FUNCTION kb_content_changed_new();
    CREATE TRIGGER documents_content_update AFTER UPDATE ON documents
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
        EXECUTE FUNCTION kb_content_changed_new();
    CREATE TRIGGER documents_content_delete AFTER DELETE ON documents
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
        EXECUTE FUNCTION kb_content_changed_old();
    CREATE TRIGGER chunks_content_insert AFTER INSERT ON chunks
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
        EXECUTE FUNCTION kb_content_changed_new();
    CREATE TRIGGER chunks_content_update AFTER UPDATE ON chunks
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
        EXECUTE FUNCTION kb_content_changed_new();
    CREATE TRIGGER chunks_content_delete AFTER DELETE ON chunks
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
        EXECUTE FUNCTION kb_content_changed_old();

    CREATE FUNCTION kb_generation_switched() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF NEW.active_generation IS DISTINCT FROM OLD.active_generation THEN
            NEW.content_version := pg_current_xact_id()::text::bigint;
        END IF;
        RETURN NEW;
    END $$;
    CREATE TRIGGER knowledge_bases_generation BEFORE UPDATE ON knowledge_bases
        FOR EACH ROW EXECUTE FUNCTION kb_generation_switched();

    CREATE TABLE answer_cache (
        kb_id bigint NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
        content_version bigint NOT NULL,
        principals text[] NOT NULL,
        question_key text NOT NULL,
        trace_id text NOT NULL,
        entry jsonb NOT NULL,
        hits bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_hit_at timestamptz,
        PRIMARY KEY (kb_id, content_version, principals, question_key)
    );
    CREATE INDEX answer_cache_trace ON answer_cache (trace_id);

    CREATE TABLE answer_cache_stats (
        kb_id bigint PRIMARY KEY REFERENCES knowledge_bases(id) ON DELETE CASCADE,
        lookups bigint NOT NULL DEFAULT 0,
        hits bigint NOT NULL DEFAULT 0
    );
    """,
    # embedding backend (torch, onnx, onnx-int8) recorded with the model, so vectors of two
    # backends are never mixed in one KB without a reindex (see store.kb.check_model).
    """
    ALTER TABLE knowledge_bases ADD COLUMN embed_backend text NOT NULL DEFAULT 'torch';
    ALTER TABLE generations ADD COLUMN embed_backend text NOT NULL DEFAULT 'torch';
    """,
    # Microsoft Teams (bot.teams): activities claimed once, the turn journal, reply chains
    # the bot answered, the current thread of each 1:1 / group chat, and bot messages ->
    # trace (votes on answers).
    """
    CREATE TABLE teams_activities (
        activity_id text PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE teams_turns (
        id bigserial PRIMARY KEY,
        activity_id text NOT NULL UNIQUE,
        kind text NOT NULL CHECK (kind IN ('ask', 'resume', 'command')),
        tenant text NOT NULL,
        conversation_id text NOT NULL,
        service_url text NOT NULL,
        thread_key text NOT NULL,
        chat_type text NOT NULL,
        user_id text NOT NULL,
        principals text[] NOT NULL,
        asker_principals text[] NOT NULL,
        text text NOT NULL,
        truncated boolean NOT NULL DEFAULT false,
        kb text NOT NULL,
        state text NOT NULL DEFAULT 'accepted'
            CHECK (state IN ('accepted', 'running', 'done', 'failed')),
        owner text NOT NULL,
        trace_id text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX teams_turns_open ON teams_turns (state) WHERE state IN ('accepted', 'running');
    CREATE TABLE teams_threads (
        thread_key text PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE teams_chats (
        chat_key text PRIMARY KEY,
        thread_no integer NOT NULL DEFAULT 1,
        last_message_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE teams_bot_messages (
        activity_id text PRIMARY KEY,
        conversation_id text NOT NULL,
        trace_id text NOT NULL,
        thread_key text NOT NULL,
        kb text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
    );
    """,
    # the conversation core: the Slack tables become every surface's (see
    # store/conversations.py), renamed in place so a running deployment keeps its rows.
    # Every row so far is Slack's; ids are the surface's own plus `surface`. The thread key
    # (slack:team:channel:ts) is kept, so old threads keep their checkpoints. KBs become a
    # list, as a conversation may be answered from several.
    """
    ALTER TABLE slack_events RENAME TO deliveries;
    ALTER TABLE deliveries RENAME COLUMN event_id TO delivery_id;
    ALTER TABLE deliveries ADD COLUMN surface text NOT NULL DEFAULT 'slack';
    ALTER TABLE deliveries ALTER COLUMN surface DROP DEFAULT;
    ALTER TABLE deliveries DROP CONSTRAINT slack_events_pkey;
    ALTER TABLE deliveries ADD CONSTRAINT deliveries_pkey PRIMARY KEY (surface, delivery_id);
    ALTER INDEX slack_events_received RENAME TO deliveries_received;

    ALTER TABLE slack_turns RENAME TO turns;
    ALTER SEQUENCE slack_turns_id_seq RENAME TO turns_id_seq;
    ALTER TABLE turns RENAME CONSTRAINT slack_turns_pkey TO turns_pkey;
    ALTER TABLE turns RENAME CONSTRAINT slack_turns_kind_check TO turns_kind_check;
    ALTER TABLE turns RENAME CONSTRAINT slack_turns_state_check TO turns_state_check;
    ALTER TABLE turns ADD COLUMN surface text NOT NULL DEFAULT 'slack';
    ALTER TABLE turns ALTER COLUMN surface DROP DEFAULT;
    ALTER TABLE turns RENAME COLUMN team TO workspace;
    ALTER TABLE turns RENAME COLUMN channel TO conversation;
    ALTER TABLE turns RENAME COLUMN message_ts TO message_id;
    ALTER TABLE turns RENAME COLUMN thread_ts TO thread;
    ALTER TABLE turns RENAME COLUMN user_id TO asker;
    ALTER TABLE turns RENAME COLUMN event_id TO delivery_id;
    ALTER TABLE turns RENAME COLUMN status_ts TO status_id;
    ALTER TABLE turns ALTER COLUMN kb TYPE text[] USING ARRAY[kb];
    ALTER TABLE turns RENAME COLUMN kb TO kbs;
    -- the surface's routing data for this thread (Teams: serviceUrl); never a secret
    ALTER TABLE turns ADD COLUMN address jsonb NOT NULL DEFAULT '{}';
    ALTER TABLE turns DROP CONSTRAINT slack_turns_channel_message_ts_key;
    ALTER TABLE turns ADD CONSTRAINT turns_message_key UNIQUE (surface, conversation, message_id);
    ALTER INDEX slack_turns_open RENAME TO turns_open;

    ALTER TABLE slack_workers RENAME TO workers;
    ALTER TABLE workers RENAME CONSTRAINT slack_workers_pkey TO workers_pkey;

    ALTER TABLE slack_threads RENAME TO threads;
    ALTER TABLE threads ADD COLUMN surface text NOT NULL DEFAULT 'slack';
    ALTER TABLE threads ALTER COLUMN surface DROP DEFAULT;
    ALTER TABLE threads RENAME COLUMN team TO workspace;
    ALTER TABLE threads RENAME COLUMN channel TO conversation;
    ALTER TABLE threads RENAME COLUMN thread_ts TO thread;
    ALTER TABLE threads ALTER COLUMN kb TYPE text[] USING ARRAY[kb];
    ALTER TABLE threads RENAME COLUMN kb TO kbs;
    ALTER TABLE threads DROP CONSTRAINT slack_threads_pkey;
    ALTER TABLE threads ADD CONSTRAINT threads_pkey PRIMARY KEY (surface, conversation, thread);

    ALTER TABLE slack_bot_messages RENAME TO bot_messages;
    ALTER TABLE bot_messages ADD COLUMN surface text NOT NULL DEFAULT 'slack';
    ALTER TABLE bot_messages ALTER COLUMN surface DROP DEFAULT;
    ALTER TABLE bot_messages RENAME COLUMN channel TO conversation;
    ALTER TABLE bot_messages RENAME COLUMN ts TO message_id;
    ALTER TABLE bot_messages ALTER COLUMN kb TYPE text[] USING
        CASE WHEN kb IS NULL THEN '{}'::text[] ELSE ARRAY[kb] END;
    ALTER TABLE bot_messages RENAME COLUMN kb TO kbs;
    ALTER TABLE bot_messages ALTER COLUMN kbs SET DEFAULT '{}';
    ALTER TABLE bot_messages ALTER COLUMN kbs SET NOT NULL;
    ALTER TABLE bot_messages DROP CONSTRAINT slack_bot_messages_pkey;
    ALTER TABLE bot_messages ADD CONSTRAINT bot_messages_pkey
        PRIMARY KEY (surface, conversation, message_id);
    ALTER TABLE bot_messages RENAME CONSTRAINT slack_bot_messages_turn_id_fkey
        TO bot_messages_turn_id_fkey;
    ALTER INDEX slack_bot_messages_trace RENAME TO bot_messages_trace;
    """,
    # several knowledge bases: an admin's description and a summary derived at ingest (titles
    # and distinctive terms), both read by the router that picks which KBs to search.
    """
    ALTER TABLE knowledge_bases ADD COLUMN description text NOT NULL DEFAULT '';
    ALTER TABLE knowledge_bases ADD COLUMN summary text NOT NULL DEFAULT '';
    """,
    # Microsoft Teams moves onto the conversation core: its rows join the surface-neutral
    # tables and its own tables go. A channel's conversation is the channel (the part of
    # Teams' conversation id before ";messageid="), its thread the reply chain's root; a
    # 1:1 or group chat's thread is its session "t<n>". Thread keys are kept as they were,
    # so every thread keeps its checkpoints. The access class a turn was accepted with is
    # read back from its principals into the turn's address.
    """
    INSERT INTO deliveries (surface, delivery_id, received_at)
    SELECT 'teams', activity_id, created_at FROM teams_activities
    ON CONFLICT DO NOTHING;

    INSERT INTO turns (surface, workspace, conversation, message_id, thread, thread_key, asker,
                       kind, text, truncated, kbs, delivery_id, state, owner, trace_id,
                       address, created_at, updated_at)
    SELECT 'teams', tenant, split_part(conversation_id, ';messageid=', 1), activity_id,
           CASE WHEN chat_type = 'channel' THEN split_part(conversation_id, ';messageid=', 2)
                ELSE regexp_replace(thread_key, '^.*:', '') END,
           thread_key, user_id, CASE kind WHEN 'command' THEN 'help' ELSE kind END, text,
           truncated, ARRAY[kb], CASE WHEN kind = 'resume' THEN NULL ELSE activity_id END,
           state, owner, trace_id,
           jsonb_build_object(
               'serviceUrl', service_url, 'chat', chat_type,
               'replyTo', split_part(activity_id, ':', 1),
               'kind', CASE
                   WHEN EXISTS (SELECT 1 FROM unnest(principals) p WHERE p LIKE 'user:%')
                       THEN 'direct'
                   WHEN EXISTS (SELECT 1 FROM unnest(principals) p WHERE p LIKE 'channel:%')
                       THEN 'private'
                   WHEN chat_type = 'personal' THEN 'external-shared'
                   ELSE 'public' END),
           created_at, updated_at
      FROM teams_turns
    ON CONFLICT DO NOTHING;

    INSERT INTO threads (surface, workspace, conversation, thread, thread_key, kbs,
                         created_at, last_turn_at)
    SELECT 'teams', w.workspace,
           split_part(substr(th.thread_key, length(w.workspace) + 8), ';messageid=', 1),
           split_part(substr(th.thread_key, length(w.workspace) + 8), ';messageid=', 2),
           th.thread_key,
           coalesce((SELECT ARRAY[t.kb] FROM teams_turns t
                      WHERE t.thread_key = th.thread_key ORDER BY t.id DESC LIMIT 1),
                    ARRAY['default']),
           th.created_at, th.created_at
      FROM teams_threads th, LATERAL (SELECT split_part(th.thread_key, ':', 2) AS workspace) w
    ON CONFLICT DO NOTHING;

    INSERT INTO threads (surface, workspace, conversation, thread, thread_key, kbs,
                         created_at, last_turn_at)
    SELECT 'teams', w.workspace, substr(c.chat_key, length(w.workspace) + 8),
           't' || c.thread_no, c.chat_key || ':t' || c.thread_no,
           coalesce((SELECT ARRAY[t.kb] FROM teams_turns t
                      WHERE t.thread_key = c.chat_key || ':t' || c.thread_no
                      ORDER BY t.id DESC LIMIT 1), ARRAY['default']),
           c.last_message_at, c.last_message_at
      FROM teams_chats c, LATERAL (SELECT split_part(c.chat_key, ':', 2) AS workspace) w
    ON CONFLICT DO NOTHING;

    INSERT INTO bot_messages (surface, conversation, message_id, trace_id, thread_key, kbs,
                              created_at)
    SELECT 'teams', split_part(conversation_id, ';messageid=', 1), activity_id, trace_id,
           thread_key, ARRAY[kb], created_at
      FROM teams_bot_messages
    ON CONFLICT DO NOTHING;

    DROP TABLE teams_activities, teams_turns, teams_threads, teams_chats, teams_bot_messages;
    """,
    # ANALYZE lists the 10,000 most common words of chunks (1,000 by default): the keyword
    # side selects chunks by its rarer terms, and at 1M chunks the default list stops at
    # words in thousands of chunks (store.search.select_terms). Analyzed now: a KB that is
    # not written to would otherwise keep the short list until autovacuum's next visit.
    "ALTER TABLE chunks ALTER COLUMN tsv SET STATISTICS 1000; ANALYZE chunks",
]

# The first schema version with the surface-neutral conversation tables (found by what it
# does, so migrations appended later do not move it).
CONVERSATION_TABLES = next(i for i, m in enumerate(MIGRATIONS)
                           if "RENAME TO bot_messages_trace" in m)
# The first schema version where Teams' rows live in them (no teams_* tables).
TEAMS_ON_CORE = next(i for i, m in enumerate(MIGRATIONS)
                     if "DROP TABLE teams_activities" in m)


def current_version(conn: psycopg.Connection) -> int:
    row = conn.execute(
        "SELECT to_regclass('ragbot_migrations') IS NOT NULL"
    ).fetchone()
    if not row or not row[0]:
        return -1
    row = conn.execute("SELECT coalesce(max(v), -1) FROM ragbot_migrations").fetchone()
    return int(row[0]) if row else -1


def setup(conn: psycopg.Connection, *, until: int | None = None) -> int:
    """Apply pending migrations (up to version ``until``, default all); return the schema
    version. ``conn`` must be autocommit."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [_SETUP_LOCK])
        conn.execute("CREATE TABLE IF NOT EXISTS ragbot_migrations (v integer PRIMARY KEY)")
    version = current_version(conn)
    last = len(MIGRATIONS) - 1 if until is None else min(until, len(MIGRATIONS) - 1)
    for v in range(version + 1, last + 1):
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", [_SETUP_LOCK])
            if conn.execute("SELECT 1 FROM ragbot_migrations WHERE v = %s", [v]).fetchone():
                continue
            conn.execute(MIGRATIONS[v])
            conn.execute("INSERT INTO ragbot_migrations (v) VALUES (%s)", [v])
    return max(last, version)
