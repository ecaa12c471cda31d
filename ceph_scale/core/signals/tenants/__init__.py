"""Usage per tenant (bucket owner) and per bucket at a fixed series count, from the bucket poll's
reads, with each tenant's growth, quota runway and figures' age; and the buckets past the studies'
~100 K objects per bucket [000]."""
