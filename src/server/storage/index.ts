import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config';
import { createS3Storage, type S3Storage } from './s3';
import { createLocalStorage, type LocalStorage, uploadsDir } from './storage';

export type AppStorage = LocalStorage | S3Storage;

/** The uploads' storage the settings ask for: the bucket when S3_BUCKET is set, else DATA_DIR/uploads. */
export function createStorage(config: Pick<Config, 's3' | 'dataDir'>, log: FastifyBaseLogger): AppStorage {
  return config.s3 ? createS3Storage(config.s3, log) : createLocalStorage(uploadsDir(config.dataDir));
}

/** True for the bucket adapter (the app then serves `/uploads/` from it). */
export const isS3Storage = (s: unknown): s is S3Storage => (s as { kind?: string } | null)?.kind === 's3';
