// Stands in for the etcd3 package inside the single executable apiserver: etcd3 reads its gRPC
// .proto files from node_modules at run time, which a single executable does not have. Loading it
// (only --storage-backend=etcd3 does) fails with what to do instead.
'use strict';
throw new Error('the etcd3 storage backend is not part of the single executable apiserver: install @plat/apiserver from npm (npm install --global @plat/apiserver) to use --storage-backend=etcd3');
