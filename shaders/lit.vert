#version 150
// wec client, lighting (vertex stage): one directional key light, a directional fill
// and ambient light, Blinn-Phong specular from the key light, all computed per vertex
// (Gouraud shading). Per-vertex lighting costs a few operations per vertex instead of
// per pixel: on a software renderer (llvmpipe) the per-pixel version cost more than the
// rest of the frame, and the board squares are flat (their light is the same at every
// pixel) while the pieces have enough vertices for smooth shading.
// The surface colour is the vertex colour (or the flat colour from setColor) times
// p3d_ColorScale (the side/level tint); lit.frag multiplies in the first texture (white
// when none). With wec_lighting = 0 the colour is that flat, unlit colour: the
// client's lighting toggle. Geometry without a normal column gets a zero normal, which
// is treated as "nothing to light".

uniform mat4 p3d_ModelViewProjectionMatrix;
uniform mat4 p3d_ModelViewMatrix;
uniform mat4 p3d_ViewMatrix;
uniform mat3 p3d_NormalMatrix;
uniform vec4 p3d_ColorScale;

uniform float wec_lighting;       // 1: lit, 0: flat unlit colour
uniform vec3 wec_key_direction;   // world space, the way the key light travels
uniform vec3 wec_key_color;
uniform vec3 wec_fill_direction;  // world space, the way the fill light travels
uniform vec3 wec_fill_color;
uniform vec3 wec_ambient_color;
uniform vec3 wec_specular_color;  // key light highlight on every surface
uniform float wec_shininess;      // Blinn-Phong exponent

in vec4 p3d_Vertex;
in vec3 p3d_Normal;
in vec4 p3d_Color;
in vec2 p3d_MultiTexCoord0;

out vec4 v_color;
out vec2 v_texcoord;

void main() {
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
    v_texcoord = p3d_MultiTexCoord0;
    vec4 surface = p3d_Color * p3d_ColorScale;
    vec3 normal = p3d_NormalMatrix * p3d_Normal;
    float normal_length = length(normal);
    if (wec_lighting < 0.5 || normal_length < 1e-4) {
        v_color = surface;
        return;
    }
    vec3 n = normal / normal_length;
    mat3 view_turn = mat3(p3d_ViewMatrix);
    vec3 to_key = normalize(-(view_turn * wec_key_direction));
    vec3 to_fill = normalize(-(view_turn * wec_fill_direction));
    float key = max(dot(n, to_key), 0.0);
    float fill = max(dot(n, to_fill), 0.0);

    vec3 to_eye = normalize(-vec3(p3d_ModelViewMatrix * p3d_Vertex));
    vec3 halfway = normalize(to_key + to_eye);
    float specular = key > 0.0 ? pow(max(dot(n, halfway), 0.0), wec_shininess) : 0.0;

    vec3 light = wec_ambient_color + wec_key_color * key + wec_fill_color * fill;
    vec3 rgb = surface.rgb * light + wec_specular_color * specular;
    v_color = vec4(min(rgb, vec3(1.0)), surface.a);
}
