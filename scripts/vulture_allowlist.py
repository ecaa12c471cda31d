"""Names vulture cannot see used: called by a framework (http.server, socketserver, the Ceph
manager, Python's bcrypt API), or kept as parsed fields of the typed snapshot.

Read by the dead-code check in scripts/test.sh; anything else unused fails it.
"""

# ruff: noqa
avail_bytes  # unused variable (exporter/core/snapshot.py:41)
db_device_bytes  # unused variable (exporter/core/snapshot.py:44)
erasure_coded  # unused variable (exporter/core/snapshot.py:77)
application  # unused variable (exporter/core/snapshot.py:80)
avail_bytes  # unused variable (exporter/core/snapshot.py:90)
read_bytes  # unused variable (exporter/core/snapshot.py:109)
write_bytes  # unused variable (exporter/core/snapshot.py:110)
bluestore_min_alloc_size_hdd  # unused variable (exporter/core/snapshot.py:169)
owner  # unused variable (exporter/core/snapshot.py:181)
old_num_shards  # unused variable (exporter/core/snapshot.py:207)
new_num_shards  # unused variable (exporter/core/snapshot.py:208)
protocol_version  # unused variable (exporter/sidecar/http_server.py:163)
server_version  # unused variable (exporter/sidecar/http_server.py:164)
disable_nagle_algorithm  # unused variable (exporter/sidecar/http_server.py:168)
_.do_GET  # unused method (exporter/sidecar/http_server.py:170)
_.log_message  # unused method (exporter/sidecar/http_server.py:203)
daemon_threads  # unused variable (exporter/sidecar/http_server.py:210)
request_queue_size  # unused variable (exporter/sidecar/http_server.py:211)
address_family  # unused variable (exporter/sidecar/http_server.py:215)
gensalt  # the bcrypt stand-in's API (mgr_module/compat/stand_in/bcrypt/__init__.py)
hashpw  # the bcrypt stand-in's API (mgr_module/compat/stand_in/bcrypt/__init__.py)
kdf  # the bcrypt stand-in's API (mgr_module/compat/stand_in/bcrypt/__init__.py)
NOTIFY_TYPES  # unused variable (mgr_module/scale/module.py:73)
CLICommand  # unused variable (mgr_module/scale/module.py:75)
_.can_run  # unused method (mgr_module/scale/module.py:77)
_.config_notify  # unused method (mgr_module/scale/module.py:136)
_.scale_status  # unused method (mgr_module/scale/module.py:320)
_.scale_plan  # unused method (mgr_module/scale/module.py:339)
_.scale_counters  # unused method (mgr_module/scale/module.py:352)
server_addr  # unused variable (mgr_module/scale/options.py:190)
server_port  # unused variable (mgr_module/scale/options.py:191)
daemon_threads  # unused variable (mgr_module/scale/webserver.py:29)
allow_reuse_address  # unused variable (mgr_module/scale/webserver.py:30)
_.address_family  # unused attribute (mgr_module/scale/webserver.py:33)
server_version  # unused variable (mgr_module/scale/webserver.py:51)
protocol_version  # unused variable (mgr_module/scale/webserver.py:52)
_.do_GET  # unused method (mgr_module/scale/webserver.py:54)
_.log_message  # unused method (mgr_module/scale/webserver.py:66)
# The module's intervals, read by name from sources.SCHEDULES
pgs_interval
settings_interval
rgw_interval
redirect_request  # urllib's hook (exporter/core/bounded_http.py)
close_connection  # http.server's attribute (exporter/sidecar/http_server.py)
handle_error  # socketserver's hook (exporter/sidecar/http_server.py)
do_HEAD  # http.server's hook (exporter/sidecar/http_server.py)
readline  # read by http.server through the header budget (exporter/core/http_serving.py)
requestline  # http.server's attribute, read by its log_request (exporter/core/http_serving.py)
_.http_open  # urllib handler hook (exporter/core/bounded_http.py)
_.https_open  # urllib handler hook (exporter/core/bounded_http.py)
_.setup  # socketserver's hook, called per connection (exporter/core/http_serving.py)
_.version_string  # http.server's hook for the Server header (exporter/core/http_serving.py)
