"""``ragbot report``: eval history and feedback as one self-contained HTML page."""
