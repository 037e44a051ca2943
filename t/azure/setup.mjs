// SPDX-License-Identifier: Apache-2.0
// Fills azurite for the SAS tests with Azure's own SDK (its Shared Key
// signer, not ours): a container and one blob.
//   node setup.mjs ENDPOINT ACCOUNT KEY CONTAINER BLOB TEXT
import { BlobServiceClient, StorageSharedKeyCredential }
  from '@azure/storage-blob';

const [endpoint, account, key, container, blob, text] = process.argv.slice(2);
const service = new BlobServiceClient(
  endpoint, new StorageSharedKeyCredential(account, key));
const c = service.getContainerClient(container);
await c.createIfNotExists();
await c.getBlockBlobClient(blob).upload(text, Buffer.byteLength(text));
