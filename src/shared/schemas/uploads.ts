import { z } from './zod';

/** What a campaign or project image is for: the 16:9 cover or a gallery picture. */
export const CampaignImageKindSchema = z.enum(['cover', 'gallery'], "kind must be 'cover' or 'gallery'");
export type CampaignImageKind = z.infer<typeof CampaignImageKindSchema>;

export const UploadCampaignImagesQuery = z.object({ kind: CampaignImageKindSchema.default('gallery') });

export const UploadedImageSchema = z.object({ url: z.string(), alt: z.string() });
export const UploadCampaignImagesOutput = z.object({ images: z.array(UploadedImageSchema) });
export type UploadCampaignImagesDto = z.infer<typeof UploadCampaignImagesOutput>;

export const UploadAvatarOutput = z.object({ url: z.string() });
export type UploadAvatarDto = z.infer<typeof UploadAvatarOutput>;
