// SPDX-License-Identifier: Apache-2.0
// Fills azurite for the SAS tests with Azure's own SDK (its Shared Key
// signer, not ours): a container, one blob, and, when DIR is given, every
// file below DIR as a blob named PREFIX/<its path below DIR>.
//   node setup.mjs ENDPOINT ACCOUNT KEY CONTAINER BLOB TEXT [PREFIX DIR]
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { BlobServiceClient, StorageSharedKeyCredential }
  from '@azure/storage-blob';

const [endpoint, account, key, container, blob, text, prefix, dir] =
  process.argv.slice(2);
const service = new BlobServiceClient(
  endpoint, new StorageSharedKeyCredential(account, key));
const c = service.getContainerClient(container);
await c.createIfNotExists();
await c.getBlockBlobClient(blob).upload(text, Buffer.byteLength(text));

if (dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name));
  // A few at a time: azurite in memory takes them faster than one by one,
  // and all at once would open hundreds of sockets.
  for (let i = 0; i < files.length; i += 16) {
    await Promise.all(files.slice(i, i + 16).map(async (f) => {
      const body = await readFile(f);
      const name = `${prefix}/${relative(dir, f).split('\\').join('/')}`;
      await c.getBlockBlobClient(name).upload(body, body.length);
    }));
  }
}
