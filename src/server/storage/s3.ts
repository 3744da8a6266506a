import type { Readable } from 'node:stream';
import { CopyObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Config } from '../config';
import { AppError } from '../lib/errors';
import { isStorageKey, type Storage, UPLOADS_URL_PREFIX } from './storage';

export type S3Settings = NonNullable<Config['s3']>;

/**
 * Where objects live in the bucket. Every upload goes under `uploads/`, which nobody but the app
 * reads. With a public base address (S3_PUBLIC_URL), an image that is public in the app (on a
 * released item, an avatar, a team) is copied under `public/` the first time it is asked for,
 * and only that prefix is meant to be readable from outside (the bucket policy or the CDN's
 * origin path): a draft's image never gets there, so its key alone opens nothing.
 */
export const PRIVATE_PREFIX = 'uploads/';
export const PUBLIC_PREFIX = 'public/';

/** Objects of this size or more go up in parts (lib-storage's multipart upload); S3 parts are at least 5 MiB. */
export const DEFAULT_PART_SIZE = 5 * 1024 * 1024;

/** What the bucket answers for a file, streamed. */
export interface StoredObject {
  body: Readable;
  contentType: string;
  length?: number;
  etag?: string;
  lastModified?: Date;
}

export interface S3Storage extends Storage {
  readonly kind: 's3';
  readonly bucket: string;
  /** The public base address (no trailing slash), when set. */
  readonly publicUrl?: string;
  readonly client: S3Client;
  /** The file, or null when the bucket has no such key; `notModified` when `ifNoneMatch` still holds. */
  get(key: string, ifNoneMatch?: string): Promise<StoredObject | 'notModified' | null>;
  /** True when the bucket already holds the key (the copy command skips it). */
  has(key: string): Promise<boolean>;
  /** Copies the file under the public prefix (once) and answers its public address; null when there is no such file. */
  publish(key: string): Promise<string | null>;
}

/** Shown to the uploader when the bucket does not take the file; the details go to the log. */
export const STORAGE_UNAVAILABLE_MESSAGE = 'Upload failed: images cannot be stored right now. Nothing was saved; please try again later.';

/** The S3 error's name and HTTP status, or the network failure's code (ECONNREFUSED...). */
function describe(err: unknown): { name: string; status?: number } {
  if (err instanceof S3ServiceException) return { name: err.name, status: err.$metadata?.httpStatusCode };
  const e = err as { name?: string; code?: string } | null;
  return { name: e?.code ?? e?.name ?? 'Error' };
}

/** A key the bucket does not hold; a bucket that does not exist is a failure, not a missing file. */
const isMissing = (err: unknown) => {
  const { name, status } = describe(err);
  return name !== 'NoSuchBucket' && (status === 404 || name === 'NotFound' || name === 'NoSuchKey');
};

function checkKey(key: string): void {
  if (!isStorageKey(key)) throw new Error(`Invalid storage key: ${JSON.stringify(key)}`);
}

/** The SDK client for the settings: path-style for most S3-compatible servers, checksums only where S3 demands them. */
export function createS3Client(s3: S3Settings): S3Client {
  return new S3Client({
    region: s3.region,
    endpoint: s3.endpoint,
    forcePathStyle: s3.forcePathStyle,
    credentials: s3.accessKeyId && s3.secretAccessKey ? { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } : undefined,
    // the SDK adds CRC32 checksums to every upload by default since early 2025, which several
    // S3-compatible services (and older versions of them) refuse; S3 itself needs them only
    // for a few operations, where the SDK still sends them
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // a bucket that does not answer fails the upload rather than holding it for minutes
    maxAttempts: 2,
  });
}

/**
 * Uploads in an S3 bucket (or an S3-compatible service). The URL answered by `put` stays
 * `/uploads/<key>`, as on local disk: that is what the database keeps, so a row means the same
 * file whichever storage holds it, and the app decides at each request how the file is answered
 * (through the app, or a redirect to the public address: storage/serve.ts).
 *
 * A failure of the bucket (missing bucket, refused credentials, unreachable) is written to the
 * log once, with its cause, and reaches the uploader as a 409 with a sentence, not as a 500.
 */
export function createS3Storage(s3: S3Settings, log: { warn(obj: object, msg: string): void }, opts: { partSize?: number; client?: S3Client } = {}): S3Storage {
  const client = opts.client ?? createS3Client(s3);
  const Bucket = s3.bucket;
  const partSize = opts.partSize ?? DEFAULT_PART_SIZE;
  /** Keys known to be under the public prefix already (a process's memory; a miss only costs a HEAD). */
  const published = new Set<string>();

  const unavailable = (err: unknown, key: string, action: string) => {
    const { name, status } = describe(err);
    log.warn({ err, bucket: Bucket, key, cause: name, status }, `object storage: could not ${action} (${name}${status ? ` ${status}` : ''})`);
    // 409 Conflict: the request was right, the server's storage is not in a state to take it.
    // Not a 5xx (an uploader is told what happened, not "server error"), not a status that
    // blames the file (400/415/422) or their pace (429); 424 would fit but tRPC has no such code
    // the cause travels along for a caller that is not a person (the copy command)
    return Object.assign(new AppError('CONFLICT', STORAGE_UNAVAILABLE_MESSAGE), { cause: err });
  };

  return {
    kind: 's3',
    bucket: Bucket,
    publicUrl: s3.publicUrl,
    client,
    async put(key, data, contentType) {
      checkKey(key);
      try {
        // one PutObject below the part size, a multipart upload above it (aborted on failure:
        // no parts are left behind)
        await new Upload({
          client,
          partSize,
          queueSize: 2,
          params: { Bucket, Key: PRIVATE_PREFIX + key, Body: data, ContentType: contentType, ContentLength: data.length },
        }).done();
      } catch (err) {
        throw unavailable(err, key, 'store an upload');
      }
      return { url: `${UPLOADS_URL_PREFIX}${key}` };
    },
    async delete(key) {
      checkKey(key);
      // S3 answers a missing key as deleted; both copies go in one request
      const res = await client.send(
        new DeleteObjectsCommand({ Bucket, Delete: { Objects: [{ Key: PRIVATE_PREFIX + key }, { Key: PUBLIC_PREFIX + key }], Quiet: true } }),
      );
      if (res.Errors?.length) {
        const e = res.Errors[0];
        throw new Error(`object storage refused to delete ${e.Key}: ${e.Code} ${e.Message ?? ''}`.trim());
      }
      published.delete(key);
    },
    async get(key, ifNoneMatch) {
      checkKey(key);
      try {
        const res = await client.send(new GetObjectCommand({ Bucket, Key: PRIVATE_PREFIX + key, IfNoneMatch: ifNoneMatch }));
        return {
          body: res.Body as Readable,
          contentType: res.ContentType ?? 'application/octet-stream',
          length: res.ContentLength,
          etag: res.ETag,
          lastModified: res.LastModified,
        };
      } catch (err) {
        if (describe(err).status === 304) return 'notModified';
        if (isMissing(err)) return null;
        throw err;
      }
    },
    async has(key) {
      checkKey(key);
      try {
        await client.send(new HeadObjectCommand({ Bucket, Key: PRIVATE_PREFIX + key }));
        return true;
      } catch (err) {
        if (isMissing(err)) return false;
        throw err;
      }
    },
    async publish(key) {
      checkKey(key);
      if (!s3.publicUrl) throw new Error('publish needs S3_PUBLIC_URL');
      if (!published.has(key)) {
        let there = true;
        try {
          await client.send(new HeadObjectCommand({ Bucket, Key: PUBLIC_PREFIX + key }));
        } catch (err) {
          if (!isMissing(err)) throw err;
          there = false;
        }
        // a server-side copy: the bytes never pass through the app
        if (!there) {
          try {
            await client.send(new CopyObjectCommand({ Bucket, Key: PUBLIC_PREFIX + key, CopySource: `${Bucket}/${PRIVATE_PREFIX}${key}` }));
          } catch (err) {
            if (isMissing(err)) return null;
            throw err;
          }
        }
        if (published.size >= 100_000) published.clear();
        published.add(key);
      }
      return `${s3.publicUrl}/${key}`;
    },
  };
}
