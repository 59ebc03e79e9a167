"""All configuration in one typed object, built once in ``main()`` and passed down."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.capacity import default_workers
from bot.http.tokens import ApiToken, parse_tokens


def _alias(*names: str) -> AliasChoices:
    return AliasChoices(*names)


def _kb_set(text: str, where: str) -> str:
    """``text`` as a KB set's key; ValueError naming ``where`` and the fix."""
    from store.kbset import kb_set_key, parse_kb_set

    try:
        return kb_set_key(parse_kb_set(text))
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from exc


class Settings(BaseSettings):
    """Read from the environment (and a ``.env`` file when present).

    Secrets (tokens, signing secret, API key, the database URL with its password) are
    ``SecretStr``: they print as ``**********`` in reprs, logs and tracebacks, and code
    calls ``get_secret_value()`` only where the secret is sent.
    """

    # The prefix keeps field names from matching unrelated variables (``home`` vs $HOME).
    # Errors never echo the input: it may be a token (each message names its item instead).
    model_config = SettingsConfigDict(env_file=".env", env_prefix="RAGBOT_", extra="ignore",
                                      populate_by_name=True, validate_default=True,
                                      hide_input_in_errors=True)

    home: Path = Field(default=Path("~/.ragbot"), validation_alias=_alias("RAGBOT_HOME"))
    database_url: SecretStr | None = Field(default=None,
                                           validation_alias=_alias("DATABASE_URL"))

    # retrieval
    embed_model: str = Field(default="all-MiniLM-L6-v2",
                             validation_alias=_alias("RAGBOT_EMBED_MODEL"))
    embed_model_path: str | None = Field(default=None,
                                         validation_alias=_alias("RAGBOT_EMBED_MODEL_PATH"))
    # torch (sentence-transformers) or ONNX Runtime, fp32 or INT8 (store.onnx_embedding)
    embed_backend: Literal["torch", "onnx", "onnx-int8"] = Field(
        default="torch", validation_alias=_alias("RAGBOT_EMBED_BACKEND"))
    embed_batch_size: int = Field(default=64, validation_alias=_alias("RAGBOT_EMBED_BATCH_SIZE"))
    reranker: str | None = Field(default=None, validation_alias=_alias("RAGBOT_RERANKER"))
    reranker_path: str | None = Field(default=None,
                                      validation_alias=_alias("RAGBOT_RERANKER_PATH"))
    max_file_mb: float = Field(default=20.0, validation_alias=_alias("RAGBOT_MAX_FILE_MB"))
    # a PDF with more pages is refused before any page is read (each page costs parse time)
    max_pdf_pages: int = Field(default=2000, ge=1, validation_alias=_alias("RAGBOT_MAX_PDF_PAGES"))
    default_kb: str = Field(default="default", validation_alias=_alias("RAGBOT_KB"))

    # agent
    engine: Literal["offline", "llm"] = Field(default="offline",
                                              validation_alias=_alias("RAGBOT_ENGINE"))
    llm_base_url: str | None = Field(default=None, validation_alias=_alias("RAGBOT_LLM_BASE_URL"))
    llm_model: str | None = Field(default=None, validation_alias=_alias("RAGBOT_LLM_MODEL"))
    llm_api_key: SecretStr | None = Field(default=None,
                                          validation_alias=_alias("RAGBOT_LLM_API_KEY"))
    llm_timeout_s: float = Field(default=30.0, validation_alias=_alias("RAGBOT_LLM_TIMEOUT"))
    # the longest one answer may take; past it the turn is stopped and the asker gets an
    # apology with its trace id (a worker process that does not stop is replaced)
    turn_timeout_s: float = Field(default=60.0, gt=0,
                                  validation_alias=_alias("RAGBOT_TURN_TIMEOUT_S"))

    # slack
    slack_bot_token: SecretStr | None = Field(default=None,
                                              validation_alias=_alias("SLACK_BOT_TOKEN"))
    slack_signing_secret: SecretStr | None = Field(
        default=None, validation_alias=_alias("SLACK_SIGNING_SECRET"))
    slack_app_token: SecretStr | None = Field(default=None,
                                              validation_alias=_alias("SLACK_APP_TOKEN"))
    slack_api_url: str = Field(default="https://slack.com/api/",
                               validation_alias=_alias("SLACK_API_URL"))
    admins: Annotated[list[str], NoDecode] = Field(default_factory=list,
                                                   validation_alias=_alias("RAGBOT_ADMINS"))
    # worker processes that answer questions at once (``ragbot serve --workers``); each
    # holds its own embedder and agent (bot.capacity: 750 MB with torch, 260 with onnx-int8)
    slack_workers: int = Field(default_factory=lambda data: default_workers(
                                   data.get("embed_backend", "torch")), ge=1,
                               validation_alias=_alias("RAGBOT_SLACK_WORKERS"))
    # hosts whose http(s) URLs are shown as source links ("wiki.example.com,docs.example.com");
    # empty: any https URL. Other sources show their title only, never a path.
    link_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list, validation_alias=_alias("RAGBOT_LINK_HOSTS"))
    # "C0123=hr+it,C0456=eng": answers in those channels come from those KBs (the router
    # picks among a channel's several)
    channel_kbs: Annotated[dict[str, str], NoDecode] = Field(
        default_factory=dict, validation_alias=_alias("RAGBOT_CHANNEL_KBS"))
    # the KBs that answer direct messages (1:1 chats): "hr+it", "*" every KB
    dm_kbs: str = Field(default="*", validation_alias=_alias("RAGBOT_DM_KBS"))

    # Microsoft Teams (``POST /api/messages`` when the app id is set; bot.teams)
    teams_app_id: str | None = Field(default=None, validation_alias=_alias("RAGBOT_TEAMS_APP_ID"))
    teams_app_secret: SecretStr | None = Field(
        default=None, validation_alias=_alias("RAGBOT_TEAMS_APP_SECRET"))
    teams_tenant_id: str | None = Field(default=None,
                                        validation_alias=_alias("RAGBOT_TEAMS_TENANT_ID"))
    # Entra object ids allowed to run admin commands
    teams_admins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, validation_alias=_alias("RAGBOT_TEAMS_ADMINS"))
    # the signing keys are read from the same URL with /keys in place of /openidconfiguration
    teams_openid_metadata_url: str = Field(
        default="https://login.botframework.com/v1/.well-known/openidconfiguration",
        validation_alias=_alias("RAGBOT_TEAMS_OPENID_METADATA_URL"))
    # the bot's own token: {LOGIN_URL}/{TENANT_ID}/oauth2/v2.0/token
    teams_login_url: str = Field(default="https://login.microsoftonline.com",
                                 validation_alias=_alias("RAGBOT_TEAMS_LOGIN_URL"))
    # 1:1 and group chats have no reply chains: a quiet gap this long starts a new thread
    teams_thread_gap_min: float = Field(default=30.0, gt=0,
                                        validation_alias=_alias("RAGBOT_TEAMS_THREAD_GAP_MIN"))

    # privacy: turns, traces, thread memory without a vote, dedup rows and archived
    # document versions older than this are deleted (daily job, or `ragbot db prune`)
    retention_days: int = Field(default=90, ge=1,
                                validation_alias=_alias("RAGBOT_RETENTION_DAYS"))

    # HTTP (`ragbot serve --http`): the query API's bearer tokens and the request limits
    api_tokens: Annotated[tuple[ApiToken, ...], NoDecode] = Field(
        default=(), validation_alias=_alias("RAGBOT_API_TOKENS"))
    http_max_body_bytes: int = Field(default=1024 * 1024, ge=1024,
                                     validation_alias=_alias("RAGBOT_HTTP_MAX_BODY_BYTES"))
    # a request's body must be in within this long of its headers (slow or stalled clients)
    http_read_timeout_s: float = Field(default=10.0, gt=0,
                                       validation_alias=_alias("RAGBOT_HTTP_READ_TIMEOUT_S"))
    http_max_connections: int = Field(default=200, ge=1,
                                      validation_alias=_alias("RAGBOT_HTTP_MAX_CONNECTIONS"))
    # Longer than a load balancer's idle timeout (60 s on the common ones), so the balancer
    # never reuses a connection the server has just closed; and a burst of events after a
    # quiet spell does not first reopen every connection.
    http_keepalive_s: int = Field(default=75, ge=1,
                                  validation_alias=_alias("RAGBOT_HTTP_KEEPALIVE_S"))

    # reuse the answers of repeated standalone questions ("off" disables; agent.cached)
    answer_cache: bool = Field(default=True, validation_alias=_alias("RAGBOT_ANSWER_CACHE"))

    # logging
    log_level: str = Field(default="INFO", validation_alias=_alias("RAGBOT_LOG_LEVEL"))
    log_format: Literal["auto", "json", "console"] = Field(
        default="auto", validation_alias=_alias("RAGBOT_LOG_FORMAT"))

    @field_validator("home")
    @classmethod
    def _expand_home(cls, value: Path) -> Path:
        return value.expanduser()

    @field_validator("admins", "link_hosts", "teams_admins", mode="before")
    @classmethod
    def _split_list(cls, value: object) -> object:
        if isinstance(value, str):
            return [v.strip() for v in value.split(",") if v.strip()]
        return value

    @field_validator("api_tokens", mode="before")
    @classmethod
    def _parse_api_tokens(cls, value: object) -> object:
        return parse_tokens(value) if isinstance(value, str) else value

    @field_validator("channel_kbs", mode="before")
    @classmethod
    def _split_channel_kbs(cls, value: object) -> object:
        if isinstance(value, str):
            pairs = [p.strip() for p in value.split(",") if p.strip()]
            out: dict[str, str] = {}
            for pair in pairs:
                channel, sep, kb = pair.partition("=")
                if not sep or not channel.strip() or not kb.strip():
                    raise ValueError(
                        f"RAGBOT_CHANNEL_KBS entry {pair!r} is not CHANNEL_ID=KB_NAME"
                    )
                out[channel.strip()] = _kb_set(kb.strip(), f"RAGBOT_CHANNEL_KBS entry {pair!r}")
            return out
        return value

    @field_validator("dm_kbs", "default_kb")
    @classmethod
    def _check_kb_set(cls, value: str) -> str:
        return _kb_set(value, "the knowledge base setting")

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * 1024 * 1024)
