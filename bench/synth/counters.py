"""The mgr prometheus module's text (filtered as the fixture is): the OSDs' BlueFS and op counters and
the RGWs' after 30 days at the study's load."""

from __future__ import annotations

from bench.synth.constants import CEPH_VERSION, DAY, DB_BYTES, EC_K, EC_M, OBJECT_BYTES, fmt
from bench.synth.layout import Layout


class Counters(Layout):
    BLUEFS = (
        "alloc_slow_fallback alloc_slow_size_fallback alloc_unit_db alloc_unit_main alloc_unit_wal "
        "bytes_written_slow bytes_written_sst bytes_written_wal compact_lat_sum compact_lat_count "
        "compact_lock_lat_sum compact_lock_lat_count db_total_bytes db_used_bytes log_bytes logged_bytes "
        "num_files read_bytes read_prefetch_bytes read_random_buffer_bytes read_random_bytes "
        "read_random_disk_bytes slow_total_bytes slow_used_bytes wal_total_bytes wal_used_bytes"
    ).split()
    OSD_OP = (
        "op_r op_r_latency_sum op_r_latency_count op_r_out_bytes op_r_prepare_latency_sum "
        "op_r_prepare_latency_count op_r_process_latency_sum op_r_process_latency_count op_rw op_rw_in_bytes "
        "op_rw_latency_sum op_rw_latency_count op_rw_out_bytes op_rw_prepare_latency_sum "
        "op_rw_prepare_latency_count op_rw_process_latency_sum op_rw_process_latency_count op_w op_w_in_bytes "
        "op_w_latency_sum op_w_latency_count op_w_prepare_latency_sum op_w_prepare_latency_count "
        "op_w_process_latency_sum op_w_process_latency_count op_wip"
    ).split()
    RGW = (
        "cache_hit cache_miss failed_req gc_retire_object get get_b get_initial_lat_sum get_initial_lat_count "
        "keystone_token_cache_hit keystone_token_cache_miss lc_abort_mpu lc_expire_current lc_expire_dm "
        "lc_expire_noncurrent lc_transition_current lc_transition_noncurrent pubsub_event_lost "
        "pubsub_event_triggered pubsub_events pubsub_missing_conf pubsub_push_failed pubsub_push_ok "
        "pubsub_push_pending pubsub_store_fail pubsub_store_ok put put_b put_initial_lat_sum "
        "put_initial_lat_count qactive qlen req"
    ).split()

    def osd_counters(self, i: int, uptime: float) -> dict[str, float]:
        """Cumulative counters of one OSD after `uptime` seconds at the study's load [004]."""
        # ~17,800 PUT/s cluster-wide, each six 16 KB chunk writes; ~28,800 GET/s, four chunk reads.
        w_rate = 17800 * (EC_K + EC_M) / self.n_osds * (0.8 + 0.4 * ((i * 7919) % 100) / 100)
        r_rate = 28800 * EC_K / self.n_osds * (0.8 + 0.4 * ((i * 104729) % 100) / 100)
        if i % 53 == 17:  # a few hot OSDs
            w_rate, r_rate = w_rate * 2.5, r_rate * 2.5
        w, r = int(w_rate * uptime), int(r_rate * uptime)
        c = {name: 0.0 for name in self.BLUEFS + self.OSD_OP}
        c.update(
            alloc_unit_db=1048576.0,
            alloc_unit_main=65536.0,
            db_total_bytes=float(DB_BYTES),
            db_used_bytes=float(self.db_used[i]),
            slow_total_bytes=0.0,
            slow_used_bytes=float(self.slow_used[i]),
            alloc_slow_fallback=float(self.slow_used[i] // 2**20),
            bytes_written_slow=float(self.slow_used[i] * 3),
            bytes_written_sst=float(self.db_used[i] * 4),
            bytes_written_wal=float(w * 20480),
            log_bytes=5 * 2**20,
            logged_bytes=4 * 2**20,
            num_files=float(self.db_used[i] // (64 * 2**20)),
            read_bytes=float(r * 4096),
            op_r=float(r),
            op_w=float(w),
            op_r_out_bytes=float(r * 16384),
            op_w_in_bytes=float(w * 16384),
            op_r_latency_count=float(r),
            op_r_latency_sum=r * 0.027,
            op_w_latency_count=float(w),
            op_w_latency_sum=w * 0.51,
            op_wip=float(i % 5),
        )
        return c

    def rgw_counters(self, n: int, uptime: float) -> dict[str, float]:
        put = int(17800 / self.n_rgws * (self.n_osds / 318) * uptime)
        get = int(28800 / self.n_rgws * (self.n_osds / 318) * uptime)
        c = {name: 0.0 for name in self.RGW}
        c.update(
            cache_hit=float(put * 3),
            cache_miss=float(put // 50),
            get=float(get),
            get_b=float(get * OBJECT_BYTES),
            get_initial_lat_count=float(get),
            get_initial_lat_sum=get * 0.027,
            put=float(put),
            put_b=float(put * OBJECT_BYTES),
            put_initial_lat_count=float(put),
            put_initial_lat_sum=put * 0.51,
            qactive=float(n % 7),
            req=float(put + get),
        )
        return c

    def mgr_prometheus_text(self, uptime: float = 30 * DAY) -> str:
        lines = []
        for name, inst in self.rgw_list:
            host = name.split(".")[1]
            lines.append(
                f'ceph_rgw_metadata{{ceph_daemon="{name}",hostname="{host}",ceph_version="{CEPH_VERSION}",'
                f'instance_id="{inst}"}} 1.0'
            )
        counters = [self.osd_counters(i, uptime) for i in range(self.n_osds)]
        for prefix, names in (("ceph_bluefs_", self.BLUEFS), ("ceph_osd_", self.OSD_OP)):
            for name in names:
                for i, c in enumerate(counters):
                    lines.append(f'{prefix}{name}{{ceph_daemon="osd.{i}"}} {fmt(c[name])}')
        rgw = [self.rgw_counters(n, uptime) for n in range(self.n_rgws)]
        for name in self.RGW:
            if name == "put":
                lines.append("# HELP ceph_rgw_put Puts")
            for (_, inst), c in zip(self.rgw_list, rgw):
                lines.append(f'ceph_rgw_{name}{{instance_id="{inst}"}} {fmt(c[name])}')
        return "\n".join(lines) + "\n"
