"""What the tests share: a campaign told as a story (story.py), refusals (refusals.py), the
HTTP service's client calls (http.py), the demo played for the forms and the report
(demo.py), the databases they run on (databases.py) and where files are (paths.py)."""
