"""Serves pycsw (PyPI) for Harvester's tests: internal/pycswtest runs it as
    python serve.py HOME RECORDS_DIR
It makes a fresh SQLite repository HOME/records.db, loads every *.xml of RECORDS_DIR with
pycsw.core.admin.load_records (as `pycsw-admin.py -c load_records` does), and serves pycsw's
CSW (2.0.2 and 3.0.0, the apiso profile on, transactions from 127.0.0.1 on) with wsgiref on
127.0.0.1 and a free port. Its first stdout line is "pycswtest: serving URL LOADED"; it
exits 2 when a record does not load.
"""
import logging
import os
import sys
import warnings
from wsgiref.simple_server import WSGIRequestHandler, make_server

warnings.simplefilter("ignore")  # pycsw 2.6 imports names Shapely 2 deprecates

from pycsw import server  # noqa: E402
from pycsw.core import admin, config  # noqa: E402


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


def main():
    home, records = sys.argv[1], sys.argv[2]
    logging.basicConfig(stream=sys.stderr, level=logging.ERROR)
    database = "sqlite:///" + os.path.join(home, "records.db")
    admin.setup_db(database, "records", home)
    files = sorted(f for f in os.listdir(records) if f.endswith(".xml"))
    loaded = admin.load_records(config.StaticContext(), database, "records", records)
    if len(loaded) != len(files):
        missing = sorted(set(files) - {os.path.basename(f) for f in loaded})
        print("pycswtest: not loaded: %s" % ", ".join(missing), file=sys.stderr, flush=True)
        sys.exit(2)

    settings = {}

    def application(env, start_response):
        csw = server.Csw({s: dict(o) for s, o in settings.items()}, env)
        status, contents = csw.dispatch_wsgi()
        start_response(status, [("Content-Type", str(csw.contenttype)),
                                ("Content-Length", str(len(contents)))])
        return [contents]

    httpd = make_server("127.0.0.1", 0, application, handler_class=QuietHandler)
    url = "http://127.0.0.1:%d/csw" % httpd.server_address[1]
    settings.update({
        "server": {"home": home, "url": url, "mimetype": "application/xml; charset=UTF-8",
                   "encoding": "UTF-8", "language": "en-US", "maxrecords": "1000",
                   "pretty_print": "true", "profiles": "apiso"},
        "manager": {"transactions": "true", "allowed_ips": "127.0.0.1"},
        "metadata:main": {
            "identification_title": "pycsw for Harvester tests",
            "identification_abstract": "A pycsw server started by internal/pycswtest",
            "identification_keywords": "catalogue,csw", "identification_keywords_type": "theme",
            "identification_fees": "None", "identification_accessconstraints": "None",
            "provider_name": "Harvester tests", "provider_url": url,
            "contact_name": "Harvester", "contact_position": "Tester",
            "contact_address": "-", "contact_city": "-", "contact_stateorprovince": "-",
            "contact_postalcode": "-", "contact_country": "-", "contact_phone": "-",
            "contact_fax": "-", "contact_email": "tests@example.org", "contact_url": url,
            "contact_hours": "-", "contact_instructions": "-", "contact_role": "pointOfContact"},
        "repository": {"database": database, "table": "records"},
        "metadata:inspire": {"enabled": "false"},
    })
    print("pycswtest: serving %s %d" % (url, len(loaded)), flush=True)
    httpd.serve_forever()


if __name__ == "__main__":
    main()
