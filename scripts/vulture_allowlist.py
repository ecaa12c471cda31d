"""Definitions vulture reports as unused that are used all the same: by a framework that calls
them by name (http.server, socketserver, urllib, asyncio, pytest, the Ceph manager, Python's
import system), or by a caller outside this repository whose signature they keep.

Each entry is the dotted path of one definition: its module's path in the repository, the
classes and functions around it, its name; the comment says who uses it (or, above a block of
entries, says it for each). The file is read by vulture (scripts/test.sh), never run.
tests/unit/test_vulture_allowlist.py checks every entry is such a path, has its reason, and
leads to a definition vulture reports; vulture itself matches the last name only, anywhere.
"""

# ruff: noqa
# mypy: ignore-errors

# --- the sidecar's and the module's HTTP: hooks http.server, socketserver and urllib call ----
ceph_scale.io.bounded_http._NoRedirect.redirect_request  # urllib asks it on every 3xx: refuses redirects
ceph_scale.io.bounded_http._HTTPHandler.http_open  # urllib's opener calls <scheme>_open
ceph_scale.io.bounded_http._HTTPSHandler.https_open  # urllib's opener calls <scheme>_open
ceph_scale.io.http_serving.BoundedHandler.handle.requestline  # http.server's send_error and log_request read it
ceph_scale.io.http_serving.BoundedHandler.version_string  # http.server's Server header
ceph_scale.io.http_serving.BoundedHandler.do_HEAD  # http.server dispatches HEAD to do_HEAD
ceph_scale.io.http_serving.BoundedHandler.log_message  # http.server logs each request through it
ceph_scale.io.http_serving.BoundedServer.daemon_threads  # socketserver.ThreadingMixIn reads it
ceph_scale.io.http_serving.BoundedServer.request_queue_size  # socketserver's listen() backlog
ceph_scale.io.http_serving.BoundedServer.__init__.address_family  # socketserver makes its socket of this family

# --- the Ceph manager: what it reads of a module, and the bcrypt API the stand-in keeps -------
mgr_module.scale.module.Module.NOTIFY_TYPES  # the manager reads which notifications to send
mgr_module.scale.module.Module.CLICommand  # Tentacle's manager reads the module's command registry
mgr_module.scale.module.Module.scale_counters  # `ceph scale counters`: the manager calls the command
mgr_module.scale.module.Module.scale_bucket_ops  # `ceph scale bucket-ops`: the manager calls the command
mgr_module.compat.stand_in.bcrypt.kdf  # bcrypt's public API, looked up by a manager module that calls it
# Each declares the module option of its name, read by name: get_localized_module_option
# ("server_addr") and the registry's module_interval_option / module_timeout_option.
mgr_module.scale.options.ModuleSettings.server_addr
mgr_module.scale.options.ModuleSettings.rgw_interval
mgr_module.scale.options.ModuleSettings.rgw_timeout

# --- development tooling: the benchmark, the demo and the previews --------------------------
bench.canned_mgr.mgr_package.__path__  # Python's import system finds the package's modules through it
bench.canned_mgr.CannedMgr.mon_command.inbuf  # the manager's MgrModule.mon_command(cmd, inbuf) signature
bench.hostile.FakeRgw.log_message  # http.server logs each request through it
bench.hostile.measure_rgw_client.daemon_threads  # socketserver.ThreadingMixIn reads it
bench.http_load.worker_scrape.Scraper.connection_made  # asyncio.Protocol callback
bench.http_load.worker_scrape.Scraper.connection_lost  # asyncio.Protocol callback
bench.http_load.worker_scrape.Scraper.data_received  # asyncio.Protocol callback
demo.monitoring.Webhook.__init__.Handler.do_POST  # http.server dispatches POST to do_POST
demo.monitoring.Webhook.__init__.Handler.log_message  # http.server logs each request through it
# Panels.draw calls the drawer of a panel's type by name: getattr(self, "_" + panel["type"]) (its
# `_stat` is left out: vulture counts a method of that name elsewhere as its use).
previews.panels.Panels._gauge
previews.panels.Panels._bargauge
previews.panels.Panels._table

# --- tests: pytest's hooks, marks and fixtures, and stand-ins keeping the real signatures ---
tests.conftest.pytest_collection_modifyitems  # pytest hook
tests.conftest.pytest_runtest_setup  # pytest hook
tests.conftest.pytest_sessionfinish  # pytest hook
tests.conftest.pytest_runtestloop  # pytest hook
tests.conftest.pytest_configure  # pytest hook
tests.conftest.pytest_keyboard_interrupt  # pytest hook
replay.workers.work.tempdir  # tempfile reads it: where every temporary file of the worker goes
replay.workers.work.unraisablehook  # sys.unraisablehook: Python calls it with each error it ignores
tests.conftest.pytest_runtest_teardown  # pytest hook
tests.fixtures.orch_from_cephadm_code.__getattr__  # a module's __getattr__: Python calls it for a missing name
# pytest reads each test module's marks from pytestmark.
tests.dashboards.test_panels_data.pytestmark
tests.deploy.test_image.pytestmark
tests.deploy.test_systemd.pytestmark
tests.deploy.test_wheel.pytestmark
tests.integration.test_alerts_e2e.pytestmark
tests.integration.test_bucket_watch_cost.pytestmark
tests.integration.test_demo.pytestmark
tests.integration.test_plunge_cluster.pytestmark
tests.integration.test_reshard_truth.pytestmark
tests.integration.test_runway_cluster.pytestmark
tests.integration.test_sidecar_cluster.pytestmark
tests.integration.test_sidecar_faults.pytestmark
tests.mgr.test_mgr_cluster.pytestmark
# Stand-ins for Ceph's classes take the same arguments as the real ones, used or not.
tests.mgr.fake_mgr.Option.__init__.long_desc  # kept through locals(): every keyword Ceph's Option takes
tests.mgr.fake_mgr.Option.__init__.see_also  # kept through locals(): every keyword Ceph's Option takes
tests.mgr.fake_mgr.FakeMgrBase.mon_command.inbuf  # MgrModule.mon_command(cmd, inbuf)
tests.mgr.test_module_handles.test_hung_manager_calls_and_a_refusing_rgw_hold_nothing_more_on_each_retry.mon_command.inbuf  # MgrModule.mon_command(cmd, inbuf)
tests.mgr.test_sources.test_perf_fallback_through_the_stock_walker.Reef.get_unlabeled_perf_counters.prio_limit  # Reef's MgrModule signature
tests.unit.test_outage_handles.FakeCluster.mon_command.inbuf  # rados.Rados.mon_command(cmd, inbuf, timeout)
# http.server logs each request through log_message; the tests' servers keep quiet.
tests.previews.test_render.FakeProm.log_message
tests.unit.test_bounded_http.Peer.log_message
tests.unit.test_perf_discovery.Server.__init__.Handler.log_message
tests.unit.test_perf_source.serve.Handler.log_message
